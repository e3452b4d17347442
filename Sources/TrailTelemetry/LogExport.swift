#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TrailFormat

/// Turns logs (text or JSON lines, rotated files, crash blocks inside) into OTLP log records, one pass:
/// - a JSON line (Docs/log-format.md) keeps its fields: time, level, label, message, metadata as attributes,
///   source as `code.*`, thread, and `trace_id`/`span_id`, which join the record to its span;
/// - a text line `<time> <level> <label>: <message> (<file>:<line>)` gives the same, less what text drops;
/// - any other line is raw output to stderr: severity INFO, `trail.label` "stderr", the time of the line before;
/// - a crash block is one record, FATAL (an ERROR block: ERROR), with the `exception.*` attributes and the stack
///   that `stacktrace` gives (symbolized when the caller can), else the block's raw frames.
/// A new resource starts wherever the pid of JSON lines changes (rotated files of several runs).
public struct LogExport {
    public var serviceName: String?
    public var resourceAttributes: [Attribute] = []
    /// The symbolized stack of a crash block, or nil.
    public var stacktrace: (CrashBlock) -> String? = { _ in nil }
    /// Crash blocks longer than this many lines are cut (a block is a few hundred lines).
    static let maxBlockLines = 100_000

    public init(serviceName: String? = nil, resourceAttributes: [Attribute] = []) {
        self.serviceName = serviceName
        self.resourceAttributes = resourceAttributes
    }

    public struct Counts: Sendable, Equatable {
        public var records = 0
        public var crashes = 0
        public var rawLines = 0
        public var cutLines = 0
    }

    /// Reads `paths` (files or log folders) in order into `writer`.
    public func export(_ paths: [String], to writer: OTLPWriter<LogRecord>) throws -> Counts {
        var state = State(export: self, writer: writer)
        for path in paths {
            for file in try LogLines.files(path) {
                state.beginFile(file)
                var lines = LogLines()
                try lines.forEach(in: file) { try state.take($0) }
                try state.endBlock()
                state.counts.cutLines += lines.cutLines
            }
        }
        if state.resourceOpen { try writer.endResource() }
        return state.counts
    }

    private struct State {
        let export: LogExport
        let writer: OTLPWriter<LogRecord>
        var counts = Counts()
        var resourceOpen = false
        var pid: Int?
        var app = "app"
        var lastTime: UInt64 = 0
        var block: [String]?
        let observed = unixNanoseconds()

        init(export: LogExport, writer: OTLPWriter<LogRecord>) {
            self.export = export
            self.writer = writer
        }

        mutating func beginFile(_ path: String) {
            let name = path.split(separator: "/").last.map(String.init) ?? path
            app = name.hasSuffix(".log") ? LogLines.rotationOrder(name).stem : name
        }

        mutating func take(_ line: UnsafeBufferPointer<UInt8>) throws {
            if block != nil {
                block!.append(String(decoding: line, as: UTF8.self))
                if line.starts(with: CrashBlockSyntax.markerOpen.utf8Bytes), line.count < 64,
                   String(decoding: line, as: UTF8.self).hasSuffix(" END ===") || block!.count >= LogExport.maxBlockLines {
                    try endBlock()
                }
                return
            }
            if line.starts(with: CrashBlockSyntax.markerOpen.utf8Bytes),
               String(decoding: line, as: UTF8.self).contains(" \(CrashBlockSyntax.beginWord) v") {
                block = [String(decoding: line, as: UTF8.self)]
                return
            }
            if line.first == 123, try addJSONLine(line) { return }
            if let record = textRecord(String(decoding: line, as: UTF8.self)) { return try add(record) }
            counts.rawLines += 1
            try add(LogRecord(timeUnixNano: lastTime, observedTimeUnixNano: observed, severity: .info, severityText: "info",
                              body: String(decoding: line, as: UTF8.self), attributes: [Attribute("trail.label", "stderr")]))
        }

        mutating func endBlock() throws {
            guard let lines = block else { return }
            block = nil
            guard let parsed = CrashLog.parse(lines.joined(separator: "\n")).blocks.first else { return }
            counts.crashes += 1
            try add(crashRecord(parsed))
        }

        mutating func add(_ record: LogRecord, pid recordPid: Int? = nil) throws {
            if !resourceOpen || (recordPid != nil && recordPid != pid) {
                if resourceOpen { try writer.endResource() }
                pid = recordPid ?? pid
                try writer.beginResource(ProcessResource(serviceName: export.serviceName ?? app, pid: pid,
                                                         extra: export.resourceAttributes))
                resourceOpen = true
            }
            if record.timeUnixNano != 0 { lastTime = record.timeUnixNano }
            counts.records += 1
            try writer.add(record)
        }

        /// False when the line is not one of the logger's JSON lines.
        mutating func addJSONLine(_ line: UnsafeBufferPointer<UInt8>) throws -> Bool {
            guard let object = try? JSONSerialization.jsonObject(with: Data(buffer: line)) as? [String: Any],
                  let level = object["level"] as? String, let message = object["message"] as? String else { return false }
            let time = (object["time"] as? String).flatMap(parseRFC3339) ?? lastTime
            var attributes: [Attribute] = []
            if let label = object["label"] as? String { attributes.append(Attribute("trail.label", label)) }
            if let source = object["source"] as? [String: Any] {
                if let function = source["function"] as? String { attributes.append(Attribute("code.function.name", function)) }
                if let file = source["file"] as? String { attributes.append(Attribute("code.file.path", file)) }
                if let line = source["line"] as? Int { attributes.append(Attribute("code.line.number", line)) }
            }
            if let thread = object["thread_id"] as? Int { attributes.append(Attribute("thread.id", thread)) }
            if let metadata = object["metadata"] as? [String: Any] {
                attributes += metadata.keys.sorted().map { Attribute($0, attributeValue(metadata[$0]!)) }
            }
            let record = LogRecord(timeUnixNano: time, observedTimeUnixNano: observed, severity: Severity(level: level) ?? .unspecified,
                                   severityText: level, body: message, attributes: attributes,
                                   traceID: (object["trace_id"] as? String).flatMap { TraceID(hex: $0) },
                                   spanID: (object["span_id"] as? String).flatMap { SpanID(hex: $0) })
            try add(record, pid: object["pid"] as? Int)
            return true
        }

        /// `2026-12-02T11:36:51.123456Z info store: added X value=40 (ItemStore/Store.swift:42)`.
        func textRecord(_ line: String) -> LogRecord? {
            let words = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard words.count == 3, let time = parseRFC3339(words[0]), let severity = Severity(level: String(words[1])) else { return nil }
            var rest = words[2], attributes: [Attribute] = []
            if let colon = rest.range(of: ": "), !rest[..<colon.lowerBound].contains(" ") {
                attributes.append(Attribute("trail.label", String(rest[..<colon.lowerBound])))
                rest = rest[colon.upperBound...]
            }
            if rest.hasSuffix(")"), let open = rest.range(of: " (", options: .backwards) {
                let location = rest[open.upperBound ..< rest.index(before: rest.endIndex)]
                if let colon = location.lastIndex(of: ":"), let number = Int(location[location.index(after: colon)...]) {
                    attributes += [Attribute("code.file.path", String(location[..<colon])), Attribute("code.line.number", number)]
                    rest = rest[..<open.lowerBound]
                }
            }
            return LogRecord(timeUnixNano: time, observedTimeUnixNano: observed, severity: severity, severityText: String(words[1]),
                             body: String(rest), attributes: attributes)
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
            let stack = export.stacktrace(block)
                ?? block.frames.map { "frame \($0.index) 0x\(String($0.address, radix: 16))" }.joined(separator: "\n")
            var attributes = [Attribute("trail.label", "crash"), Attribute("exception.type", type),
                              Attribute("exception.message", message), Attribute("exception.stacktrace", stack)]
            if let thread = block.thread {
                if let tid = Int(thread.tid) { attributes.append(Attribute("thread.id", tid)) }
                if !thread.name.isEmpty { attributes.append(Attribute("thread.name", thread.name)) }
            }
            if let executable = block.executable { attributes.append(Attribute("process.executable.path", executable)) }
            if let pid = block.pid.flatMap({ Int($0) }) { attributes.append(Attribute("process.pid", pid)) }
            if !block.openCalls.isEmpty { attributes.append(Attribute("trail.open_calls", .array(block.openCalls.map { .string($0) }))) }
            let fatal = block.kind == .crash
            return LogRecord(timeUnixNano: block.time.flatMap { parseRFC3339(Substring($0)) } ?? lastTime, observedTimeUnixNano: observed,
                             severity: fatal ? .fatal : .error, severityText: fatal ? "FATAL" : "ERROR",
                             body: fatal ? "crash: \(message)" : "error reported: \(message)", attributes: attributes)
        }
    }
}

func attributeValue(_ value: Any) -> AttributeValue {
    switch value {
    case let text as String: .string(text)
    case let list as [Any]: .array(list.map(attributeValue))
    case let object as [String: Any]: .keyValues(object.keys.sorted().map { Attribute($0, attributeValue(object[$0]!)) })
    default: .string("\(value)")
    }
}

/// `2026-12-02T11:36:51.123456789Z` (any number of fraction digits, UTC only) as nanoseconds since the epoch.
func parseRFC3339<Text: StringProtocol>(_ text: Text) -> UInt64? {
    let bytes = Array(text.utf8)
    guard bytes.count >= 20, bytes.last == 90, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84, bytes[13] == 58, bytes[16] == 58 else { return nil }
    func number(_ range: Range<Int>) -> Int? {
        var value = 0
        for index in range {
            guard bytes[index] >= 48, bytes[index] <= 57 else { return nil }
            value = value * 10 + Int(bytes[index] - 48)
        }
        return value
    }
    guard let year = number(0 ..< 4), let month = number(5 ..< 7), let day = number(8 ..< 10), let hour = number(11 ..< 13),
          let minute = number(14 ..< 16), let second = number(17 ..< 19), (1 ... 12).contains(month), (1 ... 31).contains(day) else { return nil }
    var nanoseconds = 0
    if bytes[19] == 46 {
        let digits = bytes.count - 21
        guard digits >= 1, digits <= 9, let fraction = number(20 ..< bytes.count - 1) else { return nil }
        nanoseconds = fraction * [1, 10, 100, 1000, 10000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000][9 - digits]
    } else if bytes.count != 20 {
        return nil
    }
    // Days since the epoch of a proleptic Gregorian date (the civil-from-days algorithm, inverted).
    let shiftedYear = month <= 2 ? year - 1 : year
    let era = shiftedYear / 400
    let yearOfEra = shiftedYear - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    let days = era * 146_097 + dayOfEra - 719_468
    let seconds = days * 86400 + hour * 3600 + minute * 60 + second
    guard seconds >= 0 else { return nil }
    return UInt64(seconds) * 1_000_000_000 + UInt64(nanoseconds)
}

func unixNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

extension StaticString {
    var utf8Bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: utf8Start, count: utf8CodeUnitCount) }
}
