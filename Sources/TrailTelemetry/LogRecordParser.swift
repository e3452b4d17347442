import Foundation
import TrailFormat

/// One log's lines into OTLP log records, a line at a time, as LogExport describes them (crash blocks gathered
/// whole into one record): what `export` and `--follow` share.
public struct LogRecordParser {
    let export: LogExport
    /// Each record with the resource it belongs to (the app's, and the pid of its JSON lines).
    let emit: (ProcessResource, LogRecord) throws -> Void
    public var counts = LogExport.Counts()
    var pid: Int?
    /// The resource of the current file and pid, made when either changes.
    var resource: ProcessResource?
    var app = "app"
    var lastTime: UInt64 = 0
    /// The crash block being gathered (its kind, nil outside one) and its lines (CrashLog finds the edges).
    var blockKind: CrashBlock.Kind?
    var block: [String] = []
    let observed = unixNanoseconds()

    public init(export: LogExport, emit: @escaping (ProcessResource, LogRecord) throws -> Void) {
        self.export = export
        self.emit = emit
    }

    /// Inside a crash block, whose lines make one record at its end.
    public var inBlock: Bool { blockKind != nil }

    /// The app a file's records belong to: its name, without the rotation number.
    public mutating func beginFile(_ path: String) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        app = name.hasSuffix(".log") ? LogLines.rotationOrder(name).stem : name
        resource = nil
    }

    /// One line, without its newline.
    public mutating func take(_ line: UnsafeBufferPointer<UInt8>) throws {
        if let kind = blockKind {
            block.append(String(decoding: line, as: UTF8.self))
            if CrashLog.blockEnds(line, kind) || block.count >= LogExport.maxBlockLines { try endBlock() }
            return
        }
        if let kind = CrashLog.blockBegins(line) {
            blockKind = kind
            block = [String(decoding: line, as: UTF8.self)]
            return
        }
        if line.first == 123, try addJSONLine(line) { return }
        if let record = textRecord(String(decoding: line, as: UTF8.self)) { return try add(record) }
        counts.rawLines += 1
        try add(
            LogRecord(
                timeUnixNano: lastTime, observedTimeUnixNano: observed, severity: .info, severityText: "info",
                body: String(decoding: line, as: UTF8.self), attributes: [Attribute("trail.label", "stderr")]))
    }

    /// At the end of a file: a crash block cut short is still one record.
    public mutating func endBlock() throws {
        guard blockKind != nil else { return }
        let lines = block
        (blockKind, block) = (nil, [])
        guard let parsed = CrashLog.parse(lines.joined(separator: "\n")).blocks.first else { return }
        counts.crashes += 1
        try add(crashRecord(parsed))
    }

    mutating func add(_ record: LogRecord, pid recordPid: Int? = nil) throws {
        if let recordPid, recordPid != pid { (pid, resource) = (recordPid, nil) }
        if record.timeUnixNano != 0 { lastTime = record.timeUnixNano }
        counts.records += 1
        if resource == nil {
            resource = ProcessResource(
                serviceName: export.serviceName ?? app, pid: pid, extra: export.resourceAttributes)
        }
        try emit(resource!, record)
    }

    /// False when the line is not one of the logger's JSON lines.
    mutating func addJSONLine(_ line: UnsafeBufferPointer<UInt8>) throws -> Bool {
        typealias Key = LogLineFormat
        guard let object = try? JSONSerialization.jsonObject(with: Data(buffer: line)) as? [String: Any],
            let level = object[Key.level.name] as? String, let message = object[Key.message.name] as? String
        else { return false }
        let time = (object[Key.time.name] as? String).flatMap(LogTime.parse) ?? lastTime
        var attributes: [Attribute] = []
        if let label = object[Key.label.name] as? String { attributes.append(Attribute("trail.label", label)) }
        if let source = object[Key.source.name] as? [String: Any] {
            if let function = source[Key.sourceFunction.name] as? String {
                attributes.append(Attribute("code.function.name", function))
            }
            if let file = source[Key.sourceFile.name] as? String {
                attributes.append(Attribute("code.file.path", file))
            }
            if let line = source[Key.sourceLine.name] as? Int {
                attributes.append(Attribute("code.line.number", line))
            }
        }
        if let thread = object[Key.threadID.name] as? Int { attributes.append(Attribute("thread.id", thread)) }
        if let metadata = object[Key.metadata.name] as? [String: Any] {
            attributes += metadata.keys.sorted().map { Attribute($0, attributeValue(metadata[$0]!)) }
        }
        let record = LogRecord(
            timeUnixNano: time, observedTimeUnixNano: observed, severity: Severity(level: level) ?? .unspecified,
            severityText: level, body: message, attributes: attributes,
            traceID: (object[Key.traceID.name] as? String).flatMap { TraceID(hex: $0) },
            spanID: (object[Key.spanID.name] as? String).flatMap { SpanID(hex: $0) })
        try add(record, pid: object[Key.pid.name] as? Int)
        return true
    }

    /// `2026-12-02T11:36:51.123456Z info store: added X value=40 (ItemStore/Store.swift:42)`.
    func textRecord(_ text: String) -> LogRecord? {
        guard let line = LogLineFormat.TextLine(text), let severity = Severity(level: String(line.level)) else {
            return nil
        }
        var attributes: [Attribute] = []
        if let label = line.label { attributes.append(Attribute("trail.label", String(label))) }
        if let file = line.file, let number = line.line {
            attributes += [Attribute("code.file.path", String(file)), Attribute("code.line.number", number)]
        }
        return LogRecord(
            timeUnixNano: line.time, observedTimeUnixNano: observed, severity: severity,
            severityText: String(line.level), body: String(line.body), attributes: attributes)
    }

    func crashRecord(_ block: CrashBlock) -> LogRecord {
        let signal = block.signal
        let type = signal.map(\.name) ?? "fatal error"
        var message = block.reason ?? ""
        if let signal {
            let details = [signal.code.map { "code \($0)" }, signal.address.map { "address \($0)" }].compactMap { $0 }
            let what = signal.name + (details.isEmpty ? "" : " (\(details.joined(separator: ", ")))")
            message = message.isEmpty ? what : "\(what): \(message)"
        }
        let stack =
            export.stacktrace(block)
            ?? block.frames.map { "frame \($0.index) 0x\(String($0.address, radix: 16))" }.joined(separator: "\n")
        var attributes = [
            Attribute("trail.label", "crash"), Attribute("exception.type", type),
            Attribute("exception.message", message), Attribute("exception.stacktrace", stack),
        ]
        if let thread = block.thread {
            if let tid = Int(thread.tid) { attributes.append(Attribute("thread.id", tid)) }
            if !thread.name.isEmpty { attributes.append(Attribute("thread.name", thread.name)) }
        }
        if let executable = block.executable { attributes.append(Attribute("process.executable.path", executable)) }
        if let pid = block.pid.flatMap({ Int($0) }) { attributes.append(Attribute("process.pid", pid)) }
        if !block.openCalls.isEmpty {
            attributes.append(Attribute("trail.open_calls", .array(block.openCalls.map { .string($0) })))
        }
        let fatal = block.kind == .crash
        return LogRecord(
            timeUnixNano: block.time.flatMap { LogTime.parse($0) } ?? lastTime,
            observedTimeUnixNano: observed,
            severity: fatal ? .fatal : .error, severityText: fatal ? "FATAL" : "ERROR",
            body: fatal ? "crash: \(message)" : "error reported: \(message)", attributes: attributes)
    }
}
