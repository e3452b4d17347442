import Foundation

/// A growable byte buffer that protobuf messages of a known size are written into in place, through a
/// `ProtobufCursor`: no per-byte capacity or uniqueness checks, no scratch copy. OTLPWriter keeps one per
/// request for its items.
public final class ProtobufBytes {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 1 << 16) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Makes room for `size` more bytes and counts them: the caller writes exactly them at the pointer returned.
    func extend(by size: Int) -> UnsafeMutablePointer<UInt8> {
        if count + size > capacity {
            var grown = capacity * 2
            while grown < count + size { grown *= 2 }
            let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
            moved.update(from: base, count: count)
            base.deallocate()
            base = moved
            capacity = grown
        }
        defer { count += size }
        return base + count
    }

    func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        let target = extend(by: bytes.count)
        bytes.withUnsafeBufferPointer { target.update(from: $0.baseAddress!, count: $0.count) }
    }

    func removeAll() { count = 0 }

    /// Bytes `range` appended to `array`.
    func copy(_ range: Range<Int>, to array: inout [UInt8]) {
        array.append(contentsOf: UnsafeBufferPointer(start: base + range.lowerBound, count: range.count))
    }
}

/// Writes protobuf through a pointer into room already made for exactly the bytes written (tags here are one
/// byte: fields below 16).
struct ProtobufCursor {
    var at: UnsafeMutablePointer<UInt8>

    @inline(__always) mutating func byte(_ value: UInt8) {
        at.pointee = value
        at += 1
    }

    @inline(__always) mutating func tag(_ field: UInt64, _ type: OTLPProtobuf.WireType) { byte(UInt8(truncatingIfNeeded: field << 3 | type.rawValue)) }

    @inline(__always) mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            byte(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        byte(UInt8(value))
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

    mutating func raw(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { source in
            guard let start = source.baseAddress else { return }
            at.update(from: start, count: source.count)
            at += source.count
        }
    }

    mutating func utf8(_ text: String) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { source in
            guard let start = source.baseAddress else { return }
            at.update(from: start, count: source.count)
            at += source.count
        }
        if done == nil { for unit in text.utf8 { byte(unit) } }
    }

    /// A string field, left out when empty; `size` is its UTF-8 count.
    @inline(__always) mutating func string(_ field: UInt64, _ text: String, size: Int) {
        guard size > 0 else { return }
        header(field, size: size)
        utf8(text)
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
            let value = OTLPProtobuf.anyValueSize(attribute.value)
            header(field, size: (key > 0 ? OTLPProtobuf.framedSize(key) : 0) + OTLPProtobuf.framedSize(value))
            string(1, attribute.key, size: key)
            header(2, size: value)
            anyValue(attribute.value)
        }
    }

    /// AnyValue's oneof, as `OTLPProtobuf.anyValue` writes it.
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
            header(5, size: values.reduce(0) { $0 + OTLPProtobuf.framedSize(OTLPProtobuf.anyValueSize($1)) })
            for value in values {
                header(1, size: OTLPProtobuf.anyValueSize(value))
                anyValue(value)
            }
        case .keyValues(let members):
            header(6, size: members.reduce(0) { $0 + OTLPProtobuf.framedSize(OTLPProtobuf.keyValueSize($1)) })
            attributes(1, members)
        }
    }
}
