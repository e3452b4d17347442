/// OTLP's protobuf messages (opentelemetry-proto's `trace/v1`, `logs/v1`, `common/v1`, `resource/v1`), written by
/// hand: there is no protobuf package to depend on here. Field numbers are the official ones; Tests/otlp_check.py
/// decodes every body with the official definitions. Each message's size is computed first and the message
/// written in place after its tag and length, through `ProtobufCursor` (which writes every construct: strings,
/// varints, fixed64, KeyValue, AnyValue), with `ProtobufSize` giving the sizes.
extension Span {
    /// Span: trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6, start 7, end 8, attributes 9, events 11,
    /// links 13, status 15.
    public func appendProtobuf(to bytes: inout [UInt8]) { bytes += [UInt8](protobufSize: protobufSize, writeProtobuf) }

    /// The span framed as field `field` (tag, length, message), written in place: its size is computed first.
    public func appendProtobuf(field: UInt64, to buffer: ProtobufBytes) {
        buffer.append(field: field, size: protobufSize, writeProtobuf)
    }

    /// The Span message's bytes, as `writeProtobuf` writes them.
    var protobufSize: Int {
        var size = ProtobufSize.bytesField(traceID.bytes.count) + ProtobufSize.framed(8)
        if parentSpanID != nil { size += ProtobufSize.framed(8) }
        size += ProtobufSize.bytesField(name.utf8.count)
        size += ProtobufSize.varintField(UInt64(kind))
        size += ProtobufSize.fixed64Field(startTimeUnixNano) + ProtobufSize.fixed64Field(endTimeUnixNano)
        size += ProtobufSize.attributes(attributes)
        for event in events { size += ProtobufSize.framed(Self.eventSize(event)) }
        for link in links { size += ProtobufSize.framed(Self.linkSize(link)) }
        if let statusSize { size += ProtobufSize.framed(statusSize) }
        return size
    }

    /// Event: time 1, name 2, attributes 3.
    static func eventSize(_ event: SpanEvent) -> Int {
        ProtobufSize.fixed64Field(event.timeUnixNano) + ProtobufSize.bytesField(event.name.utf8.count)
            + ProtobufSize.attributes(event.attributes)
    }

    /// Link: trace_id 1, span_id 2, attributes 4.
    static func linkSize(_ link: SpanLink) -> Int {
        ProtobufSize.bytesField(link.traceID.bytes.count) + ProtobufSize.framed(8)
            + ProtobufSize.attributes(link.attributes)
    }

    /// Status: message 2, code 3; nil when the span has none (unset, without a message).
    var statusSize: Int? {
        guard status.code != .unset || status.message != nil else { return nil }
        return ProtobufSize.bytesField(status.message?.utf8.count ?? 0)
            + ProtobufSize.varintField(UInt64(status.code.rawValue))
    }

    /// Exactly `protobufSize` bytes.
    func writeProtobuf(_ out: inout ProtobufCursor) {
        out.bytes(1, traceID.bytes)
        out.id64(2, spanID.value)
        if let parentSpanID { out.id64(4, parentSpanID.value) }
        out.string(5, name, size: name.utf8.count)
        out.varint(6, UInt64(kind))
        out.fixed64(7, startTimeUnixNano)
        out.fixed64(8, endTimeUnixNano)
        out.attributes(9, attributes)
        for event in events {
            out.header(11, size: Self.eventSize(event))
            out.fixed64(1, event.timeUnixNano)
            out.string(2, event.name, size: event.name.utf8.count)
            out.attributes(3, event.attributes)
        }
        for link in links {
            out.header(13, size: Self.linkSize(link))
            out.bytes(1, link.traceID.bytes)
            out.id64(2, link.spanID.value)
            out.attributes(4, link.attributes)
        }
        if let statusSize {
            out.header(15, size: statusSize)
            let message = status.message ?? ""
            out.string(2, message, size: message.utf8.count)
            out.varint(3, UInt64(status.code.rawValue))
        }
    }
}

extension LogRecord {
    /// LogRecord: time 1, severity_number 2, severity_text 3, body 5, attributes 6, trace_id 9, span_id 10,
    /// observed_time 11.
    public func appendProtobuf(to bytes: inout [UInt8]) { bytes += [UInt8](protobufSize: protobufSize, writeProtobuf) }

    /// The record framed as field `field` (tag, length, message), written in place: its size is computed first.
    public func appendProtobuf(field: UInt64, to buffer: ProtobufBytes) {
        buffer.append(field: field, size: protobufSize, writeProtobuf)
    }

    /// The LogRecord message's bytes, as `writeProtobuf` writes them.
    var protobufSize: Int {
        var size = ProtobufSize.fixed64Field(timeUnixNano) + ProtobufSize.varintField(UInt64(severity.rawValue))
        size += ProtobufSize.bytesField(severityText?.utf8.count ?? 0)
        size += ProtobufSize.framed(ProtobufSize.anyValue(.string(body)))
        size += ProtobufSize.attributes(attributes)
        if let traceID, spanID != nil { size += ProtobufSize.bytesField(traceID.bytes.count) + ProtobufSize.framed(8) }
        return size + ProtobufSize.fixed64Field(observedTimeUnixNano)
    }

    /// Exactly `protobufSize` bytes. The body is always written, an AnyValue even when empty.
    func writeProtobuf(_ out: inout ProtobufCursor) {
        out.fixed64(1, timeUnixNano)
        out.varint(2, UInt64(severity.rawValue))
        if let severityText { out.string(3, severityText, size: severityText.utf8.count) }
        let body = AttributeValue.string(body)
        out.header(5, size: ProtobufSize.anyValue(body))
        out.anyValue(body)
        out.attributes(6, attributes)
        if let traceID, let spanID {
            out.bytes(9, traceID.bytes)
            out.id64(10, spanID.value)
        }
        out.fixed64(11, observedTimeUnixNano)
    }
}

extension ProcessResource {
    /// Resource { attributes 1 }.
    func protobuf() -> [UInt8] {
        let attributes = self.attributes
        return [UInt8](protobufSize: ProtobufSize.attributes(attributes)) { $0.attributes(1, attributes) }
    }

    /// InstrumentationScope { name 1, version 2 }.
    static func scopeProtobuf() -> [UInt8] {
        let name = sdkName.utf8.count
        let version = sdkVersion.utf8.count
        return [UInt8](protobufSize: ProtobufSize.bytesField(name) + ProtobufSize.bytesField(version)) { out in
            out.string(1, sdkName, size: name)
            out.string(2, sdkVersion, size: version)
        }
    }
}
