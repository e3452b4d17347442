import Foundation
import TrailFormat
import TrailTrace

/// Turns traces (one or many processes) into OTLP spans in one streaming pass: a resource per process, a span
/// per selected call (Docs/trace-format.md's span and trace ids, so JSON log lines join them), the code and
/// thread attributes of the semantic conventions, and, for a process that crashed, an `exception` event on
/// every call still open when it died, with the signal and the symbolized stack from its crash block.
public struct TraceExport {
    public var serviceName: String?
    public var resourceAttributes: [Attribute] = []
    /// Selection: the shortest call exported (ns), a name filter, and whether left-out calls are folded into
    /// their exported parent's attributes (`trail.folded.calls`, `trail.folded.duration_ns`).
    public var minDuration: Double = 0
    public var filter: NamePattern?
    public var fold = false
    /// The crash block of a process, by pid (from the logs beside the traces), and its symbolized stack.
    public var crashes: [UInt32: CrashBlock] = [:]
    public var stacktrace: (CrashBlock) -> String? = { _ in nil }

    public struct Counts: Sendable {
        public var processes = 0
        public var spans = 0
        public var leftOut = 0
        public var crashed = 0
    }

    public init() {}

    /// Streams `files` (ordered by start) into `writer`.
    public func export(_ files: [TraceFile], to writer: OTLPWriter<Span>) throws -> Counts {
        var counts = Counts()
        var failure: Error?
        var ids: ProcessIDs?
        var exception: SpanEvent?
        var selection = SpanSelection(
            beginProcess: { process in
                guard failure == nil else { return }
                let file = process.file
                counts.processes += 1
                ids = ProcessIDs(file)
                exception = crashEvent(process)
                if exception != nil { counts.crashed += 1 }
                do { try writer.beginResource(resource(of: file)) } catch { failure = error }
            },
            span: { selected, process in
                guard failure == nil else { return }
                guard let ids else { return }
                do { try writer.add(span(selected, process, ids: ids, exception: exception)) } catch { failure = error }
            },
            endProcess: { _ in
                guard failure == nil else { return }
                do { try writer.endResource() } catch { failure = error }
            })
        selection.minDuration = minDuration
        selection.filter = filter
        selection.fold = fold
        CallStream().read(files, into: &selection)
        if let failure { throw failure }
        counts.spans = selection.kept
        counts.leftOut = selection.left
        return counts
    }

    /// A process's ids as its spans are exported with them (Docs/trace-format.md, "Span and trace ids").
    public struct ProcessIDs: Sendable {
        public var traceID: TraceID
        public var salt: UInt64
        /// The span of the TRACEPARENT it started under: its roots' parent.
        public var inheritedParent: SpanID?

        public init(_ file: TraceFile) {
            let host = file.info(.host) ?? ""
            traceID = .process(wallClockStart: file.startWallNanoseconds, pid: file.pid, host: host)
            salt = SpanID.salt(wallClockStart: file.startWallNanoseconds, pid: file.pid, host: host)
            // Started under a TRACEPARENT (a traced parent process, or any tool): that trace, that span.
            if let parent = file.info(.traceparent).flatMap(TraceParent.init) {
                traceID = TraceID(bytes: parent.traceID)
                inheritedParent = SpanID(parent.spanID)
            }
        }
    }

    /// The OTLP resource of a trace's process.
    public func resource(of file: TraceFile) -> ProcessResource {
        var resource = ProcessResource(
            serviceName: serviceName ?? file.info(.app) ?? file.executableName,
            serviceVersion: file.info(.version), pid: Int(file.pid),
            executablePath: file.info(.executable), hostName: file.info(.host))
        resource.extra = resourceAttributes
        return resource
    }

    /// One selected call as an OTLP span, with its process's ids.
    public func span(
        _ selected: SpanSelection.Selected, _ process: TraceProcess, ids: ProcessIDs, exception: SpanEvent?
    ) -> Span {
        let salt = ids.salt
        let call = selected.call
        let site = process.sites[call.site]
        var file: String?
        var line: Int?
        if let colon = site.location.lastIndex(of: ":"),
            let number = Int(site.location[site.location.index(after: colon)...])
        {
            file = String(site.location[..<colon])
            line = number
        } else if !site.location.isEmpty {
            file = site.location
        }
        let thread = process.threads[Int(call.thread)]
        // A tracer span's site is its name: its details say which function opened it.
        var attributes = Span.codeAttributes(
            function: call.isSpan ? nil : site.name, file: file, line: line, threadID: Int(thread.tid),
            threadName: thread.name)
        if call.isAsync, !call.isSpan { attributes.append(Attribute("trail.async", .bool(true))) }
        if call.startsTask { attributes.append(Attribute("trail.task.start", .bool(true))) }
        if let values = process.callValues[call.spanId] { attributes += Span.valueAttributes(values) }
        if selected.foldedCalls > 0 {
            attributes.append(Attribute("trail.folded.calls", selected.foldedCalls))
            attributes.append(
                Attribute(
                    "trail.folded.duration_ns", Int64(process.nanoseconds(duration: selected.foldedTicks).rounded())))
        }
        let details = selected.details
        attributes += details?.attributes.map(Self.attribute) ?? []
        var events =
            details?.events.map {
                SpanEvent(name: $0.name, timeUnixNano: $0.time, attributes: $0.attributes.map(Self.attribute))
            } ?? []
        var status =
            details?.status.map {
                SpanStatus(code: SpanStatus.Code(rawValue: Int($0.code)) ?? .unset, message: $0.message)
            } ?? .unset
        if call.unfinished {
            if var exception {
                exception.timeUnixNano = process.wallNanoseconds(call.end)
                events.append(exception)
                status = SpanStatus(
                    code: .error,
                    message:
                        "crashed: \(exception.attributes.first { $0.key == "exception.message" }.map { "\($0.value)" } ?? "")"
                )
            } else {
                status = SpanStatus(code: .error, message: "did not return before the trace ended")
            }
        }
        let parent: SpanID? =
            selected.remoteParent.map(SpanID.init)
            ?? (selected.parentSpanId == 0 ? ids.inheritedParent : SpanID.exported(selected.parentSpanId, salt: salt))
        var span = Span(
            traceID: selected.traceID.map(TraceID.init(bytes:)) ?? ids.traceID,
            spanID: SpanID.exported(call.spanId, salt: salt),
            parentSpanID: parent, name: details?.name ?? site.name,
            startTimeUnixNano: process.wallNanoseconds(call.start), endTimeUnixNano: process.wallNanoseconds(call.end),
            attributes: attributes, events: events, status: status)
        span.kind = details?.kind.map { Int32($0.rawValue) } ?? 1
        span.links =
            details?.links.compactMap { link in
                link.traceID.count == 16 && link.traceID.contains { $0 != 0 } && link.spanID != 0
                    ? SpanLink(
                        traceID: TraceID(bytes: link.traceID), spanID: SpanID(link.spanID),
                        attributes: link.attributes.map(Self.attribute))
                    : nil
            } ?? []
        return span
    }

    static func attribute(_ attribute: SpanDetails.Attribute) -> Attribute {
        let value: AttributeValue =
            switch attribute.value {
            case .string(let text): .string(text)
            case .int(let number): .int(number)
            case .double(let number): .double(number)
            case .bool(let flag): .bool(flag)
            case .strings(let texts): .array(texts.map { .string($0) })
            case .ints(let numbers): .array(numbers.map { .int($0) })
            case .doubles(let numbers): .array(numbers.map { .double($0) })
            case .bools(let flags): .array(flags.map { .bool($0) })
            }
        return Attribute(attribute.key, value)
    }

    /// The exception event for a process that died in a crash its logs recorded (each span times it at its end).
    func crashEvent(_ process: TraceProcess) -> SpanEvent? {
        guard !process.file.complete, let block = crashes[process.pid] else { return nil }
        let type = block.signal?.name ?? (block.kind == .crash ? "crash" : "error")
        let message = [
            block.signal.map { signal in signal.code.map { "\(signal.name) (\($0))" } ?? signal.name }, block.reason,
        ]
        .compactMap { $0 }.joined(separator: ": ")
        return .exception(
            type: type, message: message.isEmpty ? type : message, stacktrace: stacktrace(block), timeUnixNano: 0)
    }

    /// Crash blocks in the logs under `paths` (files or folders), by pid; the last one of a pid wins.
    public static func crashBlocks(in paths: [String]) -> [UInt32: CrashBlock] {
        var blocks: [UInt32: CrashBlock] = [:]
        for path in paths {
            for file in (try? LogLines.files(path)) ?? [] {
                guard let data = FileManager.default.contents(atPath: file), data.count < 1 << 30 else { continue }
                let text = String(decoding: data, as: UTF8.self)
                guard text.contains(CrashBlockSyntax.markerOpen.description) else { continue }
                for block in CrashLog.parse(text).blocks {
                    if let pid = block.pid.flatMap(UInt32.init) { blocks[pid] = block }
                }
            }
        }
        return blocks
    }
}
