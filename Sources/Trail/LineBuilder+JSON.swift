internal import CTrailShim
internal import TrailFormat

private typealias Key = LogLineFormat

/// `TRAIL_LOG_FORMAT=json`: one JSON object per line (Docs/log-format.md), assembled on the stack as text
/// lines are, with TrailFormat's `LogLineFormat` keys in a fixed order:
///
///     {"time":"2026-12-02T11:36:51.123456789Z","level":"info","label":"store","message":"added X",
///      "metadata":{"value":"40"},"source":{"file":"App/Store.swift","function":"add(_:)","line":42},
///      "pid":4242,"thread_id":4243,"trace_id":"…","span_id":"…"}
///
/// The ids are the current traced call's when recording, as OTLP spans name it, so logs join spans. A line
/// in swift-log's shape adds its `source` as `"module"` in the source object.
///
/// Raw output to fd 2 (other code's writes, the Swift runtime's messages, crash blocks) is not the logger's and
/// stays as it was written: readers take a line that does not start with `{` as raw text.
extension LogSink {
    @inline(__always)
    func writeJSON(
        level: Logger.Level, label: String, metadata: Logger.Metadata, source: Source,
        message: (inout LineBuilder, _ escapesText: Bool) -> Void
    ) {
        assembleJSON(level, urgent: level >= flushLevel) { line in
            line.append(Key.label.field)
            line.appendJSONString { $0.append(label) }
            line.append(Key.message.field)
            line.appendJSONString { message(&$0, false) }
            if !metadata.isEmpty {
                line.append(Key.metadata.field)
                line.appendJSON(metadata)
            }
            line.append(Key.source.field)
            line.append(Key.sourceFile.field)
            if let dynamic = source.dynamic {
                line.appendJSONString { $0.append(dynamic.file) }
                line.append(Key.sourceFunction.field)
                line.appendJSONString { $0.append(dynamic.function) }
            } else {
                line.appendJSONString { $0.append(source.file) }
                line.append(Key.sourceFunction.field)
                line.appendJSONString { $0.append(source.function) }
            }
            line.append(Key.sourceLine.field)
            line.append(Int(source.line))
            if let module = source.dynamic?.module {
                line.append(Key.sourceModule.field)
                line.appendJSONString { $0.append(module) }
            }
            line.append("}")
        }
    }

    /// The tracer's log-mode lines, as messages of the label `trace`, with the call's ids as keys.
    func writeTraceLineJSON(
        _ bytes: UnsafeRawBufferPointer, messageLength: Int, traceID: UnsafePointer<UInt8>?, spanID: UInt64
    ) {
        let text = UnsafeRawBufferPointer(rebasing: bytes.prefix(messageLength))
        assembleJSON(.trace, urgent: false, span: traceID.map { ($0, spanID) }) { line in
            line.append(Key.label.field)
            line.append(#""trace""#)
            line.append(Key.message.field)
            line.appendJSONString { $0.append(text) }
        }
    }

    @inline(__always)
    private func assembleJSON(
        _ level: Logger.Level, urgent: Bool, span: (UnsafePointer<UInt8>, UInt64)? = nil,
        _ body: (inout LineBuilder) -> Void
    ) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { scratch in
            var line = LineBuilder(scratch)
            line.reserveJSONTimestamp()
            line.append(Key.level.field)
            line.append("\"")
            line.append(level.name)
            line.append("\"")
            body(&line)
            line.append(Key.pid.field)
            line.append(Int(trail_log_process_id()))
            line.append(Key.threadID.field)
            line.append(Int(trail_log_thread_id()))
            line.appendSpan(span)
            line.append("}\n")
            line.withBytes { deliver($0, urgent: urgent) }
        }
    }
}

extension LineBuilder {
    /// `,"trace_id":"<32 hex>","span_id":"<16 hex>"`: the given ids, else the span in effect (Trail.currentSpan);
    /// nothing outside one.
    mutating func appendSpan(_ given: (trace: UnsafePointer<UInt8>, span: UInt64)?) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { traceID in
            var spanID: UInt64 = 0
            if let given {
                for index in 0 ..< 16 { traceID[index] = given.trace[index] }
                spanID = given.span
            } else if !Trail.currentSpan(traceID.baseAddress!, &spanID) {
                return
            }
            append(LogLineFormat.traceID.field)
            append("\"")
            for byte in traceID { appendHex(UInt64(byte), digits: 2) }
            append("\"")
            append(LogLineFormat.spanID.field)
            append("\"")
            appendHex(spanID, digits: 16)
            append("\"")
        }
    }

    /// `value`'s low `digits` hex digits, lowercase, most significant first.
    mutating func appendHex(_ value: UInt64, digits: Int) {
        let alphabet: StaticString = "0123456789abcdef"
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { out in
            for index in 0 ..< digits {
                out[index] = alphabet.utf8Start[Int(value >> (4 * UInt64(digits - 1 - index)) & 15)]
            }
            append(out.baseAddress!, digits)
        }
    }

    /// `"…"`: what `body` appends, escaped.
    @inline(__always)
    mutating func appendJSONString(_ body: (inout LineBuilder) -> Void) {
        append("\"")
        let start = length
        body(&self)
        escapeJSON(from: start)
        append("\"")
    }

    /// Metadata as an object, keys sorted: nested dictionaries as objects, arrays as arrays, the rest as strings.
    mutating func appendJSON(_ metadata: Logger.Metadata) {
        append("{")
        for (index, key) in metadata.keys.sorted().enumerated() {
            if index > 0 { append(",") }
            appendJSONString { $0.append(key) }
            append(":")
            appendJSON(metadata[key]!)
        }
        append("}")
    }

    mutating func appendJSON(_ value: Logger.MetadataValue) {
        switch value {
        case .string(let text): appendJSONString { $0.append(text) }
        case .stringConvertible(let convertible): appendJSONString { $0.append(convertible.description) }
        case .dictionary(let values): appendJSON(values)
        case .array(let values):
            append("[")
            for (index, element) in values.enumerated() {
                if index > 0 { append(",") }
                appendJSON(element)
            }
            append("]")
        }
    }
}
