/// OTLP's protobuf encoding (opentelemetry-proto's `trace/v1`, `logs/v1`, `common/v1`, `resource/v1` messages),
/// written by hand: there is no protobuf package to depend on here. Field numbers are the official ones;
/// Tests/otlp_check.py decodes every body with the official definitions. Attributes, the bulk of every span, are
/// written in place after their computed lengths; a rarer nested message (an event, a link) goes through a
/// scratch buffer.
struct OTLPProtobuf {
    var bytes: [UInt8] = []

    enum WireType: UInt64 { case varint = 0, fixed64 = 1, length = 2, fixed32 = 5 }

    mutating func tag(_ field: UInt64, _ type: WireType) { varint(field << 3 | type.rawValue) }

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// A varint field, left out when 0 (proto3's default).
    mutating func varint(_ field: UInt64, _ value: UInt64) {
        guard value != 0 else { return }
        tag(field, .varint)
        varint(value)
    }

    mutating func fixed64(_ field: UInt64, _ value: UInt64) {
        guard value != 0 else { return }
        tag(field, .fixed64)
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func string(_ field: UInt64, _ text: String) {
        guard !text.isEmpty else { return }
        tag(field, .length)
        varint(UInt64(text.utf8.count))
        bytes.append(contentsOf: text.utf8)
    }

    mutating func data(_ field: UInt64, _ data: [UInt8]) {
        guard !data.isEmpty else { return }
        tag(field, .length)
        varint(UInt64(data.count))
        bytes.append(contentsOf: data)
    }

    /// `field` as an embedded message, written by `body` (always present, even when empty).
    mutating func message(_ field: UInt64, _ body: (inout OTLPProtobuf) -> Void) {
        var nested = OTLPProtobuf()
        body(&nested)
        tag(field, .length)
        varint(UInt64(nested.bytes.count))
        bytes.append(contentsOf: nested.bytes)
    }

    /// Field `field` holding `size` bytes of a message written next.
    mutating func header(_ field: UInt64, size: Int) {
        tag(field, .length)
        varint(UInt64(size))
    }

    static func varintSize(_ value: UInt64) -> Int { value == 0 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7 }

    /// A length-delimited field's bytes, tag and length included (tags here are one byte: fields below 16).
    static func framedSize(_ size: Int) -> Int { 1 + varintSize(UInt64(size)) + size }

    /// A bytes or string field's bytes, left out (0) when empty.
    static func bytesFieldSize(_ size: Int) -> Int { size > 0 ? framedSize(size) : 0 }

    /// Repeated KeyValue's bytes.
    static func attributesSize(_ attributes: [Attribute]) -> Int {
        var size = 0
        for attribute in attributes { size += framedSize(keyValueSize(attribute)) }
        return size
    }

    /// KeyValue's bytes: key 1 (left out when empty), value 2.
    static func keyValueSize(_ attribute: Attribute) -> Int {
        let key = attribute.key.utf8.count
        return (key > 0 ? framedSize(key) : 0) + framedSize(anyValueSize(attribute.value))
    }

    /// AnyValue's bytes.
    static func anyValueSize(_ value: AttributeValue) -> Int {
        switch value {
        case .string(let text): framedSize(text.utf8.count)
        case .bool: 2
        case .int(let number): 1 + varintSize(UInt64(bitPattern: number))
        case .double: 9
        case .array(let values): framedSize(values.reduce(0) { $0 + framedSize(anyValueSize($1)) })
        case .keyValues(let members): framedSize(members.reduce(0) { $0 + framedSize(keyValueSize($1)) })
        }
    }

    /// KeyValue { key = 1; value = 2 }, repeated at `field`.
    mutating func attributes(_ field: UInt64, _ attributes: [Attribute]) {
        for attribute in attributes {
            header(field, size: Self.keyValueSize(attribute))
            string(1, attribute.key)
            header(2, size: Self.anyValueSize(attribute.value))
            anyValue(attribute.value)
        }
    }

    /// AnyValue's oneof: string 1, bool 2, int 3, double 4, array 5, kvlist 6. A member set to its default is
    /// still written: the oneof says which.
    mutating func anyValue(_ value: AttributeValue) {
        switch value {
        case .string(let text):
            tag(1, .length)
            varint(UInt64(text.utf8.count))
            bytes.append(contentsOf: text.utf8)
        case .bool(let flag):
            tag(2, .varint)
            varint(flag ? 1 : 0)
        case .int(let number):
            tag(3, .varint)
            varint(UInt64(bitPattern: number))
        case .double(let number):
            tag(4, .fixed64)
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: number.bitPattern >> UInt64(shift))) }
        case .array(let values):
            header(5, size: values.reduce(0) { $0 + Self.framedSize(Self.anyValueSize($1)) })
            for value in values {
                header(1, size: Self.anyValueSize(value))
                anyValue(value)
            }
        case .keyValues(let members):
            header(6, size: members.reduce(0) { $0 + Self.framedSize(Self.keyValueSize($1)) })
            attributes(1, members)
        }
    }

    static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0 ..< 8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) }
    }
}

extension Span {
    /// Span: trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6, start 7, end 8, attributes 9, events 11,
    /// links 13, status 15.
    public func appendProtobuf(to bytes: inout [UInt8]) {
        let size = protobufSize
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: size))
        bytes.withUnsafeMutableBufferPointer { buffer in
            var out = ProtobufCursor(at: buffer.baseAddress! + start)
            writeProtobuf(&out)
            precondition(out.at == buffer.baseAddress! + start + size, "Span.protobufSize disagrees with what was written")
        }
    }

    /// The span framed as field `field` (tag, length, message), written in place: its size is computed first.
    public func appendProtobuf(field: UInt64, to buffer: ProtobufBytes) {
        let size = protobufSize
        var out = ProtobufCursor(at: buffer.extend(by: OTLPProtobuf.framedSize(size)))
        out.header(field, size: size)
        let end = out.at + size
        writeProtobuf(&out)
        precondition(out.at == end, "Span.protobufSize disagrees with what was written")
    }

    /// The Span message's bytes, as `writeProtobuf` writes them.
    var protobufSize: Int {
        var size = OTLPProtobuf.bytesFieldSize(traceID.bytes.count) + 10
        if parentSpanID != nil { size += 10 }
        size += OTLPProtobuf.bytesFieldSize(name.utf8.count)
        if kind != 0 { size += 1 + OTLPProtobuf.varintSize(UInt64(kind)) }
        if startTimeUnixNano != 0 { size += 9 }
        if endTimeUnixNano != 0 { size += 9 }
        size += OTLPProtobuf.attributesSize(attributes)
        for event in events { size += OTLPProtobuf.framedSize(Self.eventSize(event)) }
        for link in links { size += OTLPProtobuf.framedSize(Self.linkSize(link)) }
        if let statusSize { size += OTLPProtobuf.framedSize(statusSize) }
        return size
    }

    /// Event: time 1, name 2, attributes 3.
    static func eventSize(_ event: SpanEvent) -> Int {
        (event.timeUnixNano != 0 ? 9 : 0) + OTLPProtobuf.bytesFieldSize(event.name.utf8.count) + OTLPProtobuf.attributesSize(event.attributes)
    }

    /// Link: trace_id 1, span_id 2, attributes 4.
    static func linkSize(_ link: SpanLink) -> Int {
        OTLPProtobuf.bytesFieldSize(link.traceID.bytes.count) + 10 + OTLPProtobuf.attributesSize(link.attributes)
    }

    /// Status: message 2, code 3; nil when the span has none (unset, without a message).
    var statusSize: Int? {
        guard status.code != .unset || status.message != nil else { return nil }
        let code = UInt64(status.code.rawValue)
        return OTLPProtobuf.bytesFieldSize(status.message?.utf8.count ?? 0) + (code != 0 ? 1 + OTLPProtobuf.varintSize(code) : 0)
    }

    /// Exactly `protobufSize` bytes. Fields at their default (empty, 0) are left out, as proto3 does.
    func writeProtobuf(_ out: inout ProtobufCursor) {
        if !traceID.bytes.isEmpty {
            out.header(1, size: traceID.bytes.count)
            out.raw(traceID.bytes)
        }
        out.header(2, size: 8)
        out.bigEndian64(spanID.value)
        if let parentSpanID {
            out.header(4, size: 8)
            out.bigEndian64(parentSpanID.value)
        }
        out.string(5, name, size: name.utf8.count)
        if kind != 0 {
            out.tag(6, .varint)
            out.varint(UInt64(kind))
        }
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
            if !link.traceID.bytes.isEmpty {
                out.header(1, size: link.traceID.bytes.count)
                out.raw(link.traceID.bytes)
            }
            out.header(2, size: 8)
            out.bigEndian64(link.spanID.value)
            out.attributes(4, link.attributes)
        }
        if let statusSize {
            out.header(15, size: statusSize)
            let message = status.message ?? ""
            out.string(2, message, size: message.utf8.count)
            if status.code != .unset {
                out.tag(3, .varint)
                out.varint(UInt64(status.code.rawValue))
            }
        }
    }
}

extension LogRecord {
    /// LogRecord: time 1, severity_number 2, severity_text 3, body 5, attributes 6, trace_id 9, span_id 10,
    /// observed_time 11.
    public func appendProtobuf(to bytes: inout [UInt8]) {
        var out = OTLPProtobuf(bytes: bytes)
        bytes = []
        out.fixed64(1, timeUnixNano)
        out.varint(2, UInt64(severity.rawValue))
        if let severityText { out.string(3, severityText) }
        out.message(5) { $0.anyValue(.string(body)) }
        out.attributes(6, attributes)
        if let traceID, let spanID {
            out.data(9, traceID.bytes)
            out.data(10, OTLPProtobuf.bigEndian(spanID.value))
        }
        out.fixed64(11, observedTimeUnixNano)
        bytes = out.bytes
    }
}

extension ProcessResource {
    /// Resource { attributes 1 }.
    func protobuf() -> [UInt8] {
        var out = OTLPProtobuf()
        out.attributes(1, attributes)
        return out.bytes
    }

    /// InstrumentationScope { name 1, version 2 }.
    static func scopeProtobuf() -> [UInt8] {
        var out = OTLPProtobuf()
        out.string(1, sdkName)
        out.string(2, sdkVersion)
        return out.bytes
    }
}
