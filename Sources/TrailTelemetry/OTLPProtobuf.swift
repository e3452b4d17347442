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
        var out = OTLPProtobuf(bytes: bytes)
        bytes = []
        out.data(1, traceID.bytes)
        out.data(2, OTLPProtobuf.bigEndian(spanID.value))
        if let parentSpanID { out.data(4, OTLPProtobuf.bigEndian(parentSpanID.value)) }
        out.string(5, name)
        out.varint(6, UInt64(kind))
        out.fixed64(7, startTimeUnixNano)
        out.fixed64(8, endTimeUnixNano)
        out.attributes(9, attributes)
        for event in events {
            // Event: time 1, name 2, attributes 3.
            out.message(11) { message in
                message.fixed64(1, event.timeUnixNano)
                message.string(2, event.name)
                message.attributes(3, event.attributes)
            }
        }
        for link in links {
            // Link: trace_id 1, span_id 2, attributes 4.
            out.message(13) { message in
                message.data(1, link.traceID.bytes)
                message.data(2, OTLPProtobuf.bigEndian(link.spanID.value))
                message.attributes(4, link.attributes)
            }
        }
        if status.code != .unset || status.message != nil {
            // Status: message 2, code 3.
            out.message(15) { message in
                message.string(2, status.message ?? "")
                message.varint(3, UInt64(status.code.rawValue))
            }
        }
        bytes = out.bytes
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
