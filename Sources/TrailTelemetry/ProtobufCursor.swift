/// Writes protobuf through a pointer into room already made for exactly the bytes written (tags here are one
/// byte: fields below 16). Every protobuf construct OTLP needs is written here, and its size computed in
/// `ProtobufSize` beside it: a message's size is known before a byte of it is written, so nothing goes through a
/// scratch buffer. Fields at their default (empty, 0) are left out, as proto3 does, except where noted.
struct ProtobufCursor {
    enum WireType: UInt64 {
        case varint = 0
        case fixed64 = 1
        case length = 2
        case fixed32 = 5
    }

    var at: UnsafeMutablePointer<UInt8>

    @inline(__always) mutating func byte(_ value: UInt8) {
        at.pointee = value
        at += 1
    }

    @inline(__always) mutating func tag(_ field: UInt64, _ type: WireType) {
        byte(UInt8(truncatingIfNeeded: field << 3 | type.rawValue))
    }

    @inline(__always) mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            byte(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        byte(UInt8(value))
    }

    /// A varint field, left out when 0.
    @inline(__always) mutating func varint(_ field: UInt64, _ value: UInt64) {
        guard value != 0 else { return }
        tag(field, .varint)
        varint(value)
    }

    /// `field` holding a length-delimited value of `size` bytes, written next.
    @inline(__always) mutating func header(_ field: UInt64, size: Int) {
        tag(field, .length)
        varint(UInt64(size))
    }

    @inline(__always) mutating func littleEndian64(_ value: UInt64) {
        UnsafeMutableRawPointer(at).storeBytes(of: value.littleEndian, as: UInt64.self)
        at += 8
    }

    @inline(__always) mutating func bigEndian64(_ value: UInt64) {
        UnsafeMutableRawPointer(at).storeBytes(of: value.bigEndian, as: UInt64.self)
        at += 8
    }

    mutating func raw(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress else { return }
        at.update(from: start, count: bytes.count)
        at += bytes.count
    }

    mutating func raw(_ bytes: [UInt8]) { bytes.withUnsafeBufferPointer { raw($0) } }

    mutating func utf8(_ text: String) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { raw($0) }
        if done == nil { for unit in text.utf8 { byte(unit) } }
    }

    /// A string field, left out when empty; `size` is its UTF-8 count.
    @inline(__always) mutating func string(_ field: UInt64, _ text: String, size: Int) {
        guard size > 0 else { return }
        header(field, size: size)
        utf8(text)
    }

    /// A bytes field, left out when empty.
    @inline(__always) mutating func bytes(_ field: UInt64, _ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        header(field, size: bytes.count)
        raw(bytes)
    }

    /// An 8-byte id (a span id) as a bytes field, big-endian as OTLP has it.
    @inline(__always) mutating func id64(_ field: UInt64, _ value: UInt64) {
        header(field, size: 8)
        bigEndian64(value)
    }

    /// A fixed64 field, left out when 0.
    @inline(__always) mutating func fixed64(_ field: UInt64, _ value: UInt64) {
        guard value != 0 else { return }
        tag(field, .fixed64)
        littleEndian64(value)
    }

    /// KeyValue { key = 1; value = 2 }, repeated at `field`.
    mutating func attributes(_ field: UInt64, _ attributes: [Attribute]) {
        for attribute in attributes {
            let key = attribute.key.utf8.count
            let value = ProtobufSize.anyValue(attribute.value)
            header(field, size: ProtobufSize.bytesField(key) + ProtobufSize.framed(value))
            string(1, attribute.key, size: key)
            header(2, size: value)
            anyValue(attribute.value)
        }
    }

    /// AnyValue's oneof: string 1, bool 2, int 3, double 4, array 5, kvlist 6. A member set to its default is
    /// still written: the oneof says which.
    mutating func anyValue(_ value: AttributeValue) {
        switch value {
        case .string(let text):
            header(1, size: text.utf8.count)
            utf8(text)
        case .bool(let flag):
            tag(2, .varint)
            byte(flag ? 1 : 0)
        case .int(let number):
            tag(3, .varint)
            varint(UInt64(bitPattern: number))
        case .double(let number):
            tag(4, .fixed64)
            littleEndian64(number.bitPattern)
        case .array(let values):
            header(5, size: ProtobufSize.arrayValue(values))
            for value in values {
                header(1, size: ProtobufSize.anyValue(value))
                anyValue(value)
            }
        case .keyValues(let members):
            header(6, size: ProtobufSize.attributes(members))
            attributes(1, members)
        }
    }
}

/// The bytes `ProtobufCursor` writes for each construct.
enum ProtobufSize {
    static func varint(_ value: UInt64) -> Int { value == 0 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7 }

    /// A varint field's bytes, tag included; 0 when the value is (it is left out).
    static func varintField(_ value: UInt64) -> Int { value != 0 ? 1 + varint(value) : 0 }

    /// A fixed64 field's bytes, tag included; 0 when the value is (it is left out).
    static func fixed64Field(_ value: UInt64) -> Int { value != 0 ? 9 : 0 }

    /// A length-delimited field's bytes, tag and length included.
    static func framed(_ size: Int) -> Int { 1 + varint(UInt64(size)) + size }

    /// A bytes or string field's bytes, left out (0) when empty.
    static func bytesField(_ size: Int) -> Int { size > 0 ? framed(size) : 0 }

    /// Repeated KeyValue's bytes (as a message's field, or a KeyValueList's).
    static func attributes(_ attributes: [Attribute]) -> Int {
        var size = 0
        for attribute in attributes { size += framed(keyValue(attribute)) }
        return size
    }

    /// KeyValue's bytes: key 1 (left out when empty), value 2.
    static func keyValue(_ attribute: Attribute) -> Int {
        bytesField(attribute.key.utf8.count) + framed(anyValue(attribute.value))
    }

    /// ArrayValue's bytes: values 1.
    static func arrayValue(_ values: [AttributeValue]) -> Int {
        values.reduce(0) { $0 + framed(anyValue($1)) }
    }

    /// AnyValue's bytes.
    static func anyValue(_ value: AttributeValue) -> Int {
        switch value {
        case .string(let text): framed(text.utf8.count)
        case .bool: 2
        case .int(let number): 1 + varint(UInt64(bitPattern: number))
        case .double: 9
        case .array(let values): framed(arrayValue(values))
        case .keyValues(let members): framed(attributes(members))
        }
    }
}
