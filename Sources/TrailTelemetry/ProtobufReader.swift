import CZlib

/// Reads protobuf fields: for the receiver's answers (partial success).
struct ProtobufReader {
    enum Value {
        case varint(UInt64)
        case bytes(ArraySlice<UInt8>)
        case fixed
    }
    var bytes: ArraySlice<UInt8>

    mutating func varint() -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while let byte = bytes.popFirst() {
            value |= UInt64(byte & 0x7f) << shift
            if byte < 0x80 { return value }
            shift += 7
            if shift > 63 { return nil }
        }
        return nil
    }

    mutating func next() -> (field: UInt64, value: Value)? {
        guard let key = varint() else { return nil }
        switch key & 7 {
        case 0: return varint().map { (key >> 3, .varint($0)) }
        case 1:
            guard bytes.count >= 8 else { return nil }
            bytes.removeFirst(8)
            return (key >> 3, .fixed)
        case 5:
            guard bytes.count >= 4 else { return nil }
            bytes.removeFirst(4)
            return (key >> 3, .fixed)
        case 2:
            guard let length = varint(), length <= UInt64(bytes.count) else { return nil }
            let value = bytes.prefix(Int(length))
            bytes.removeFirst(Int(length))
            return (key >> 3, .bytes(value))
        default: return nil
        }
    }
}
