/// Little-endian reads from a section; reading past the end sets `failed` and yields zeros.
struct ByteReader {
    var bytes = UnsafeRawBufferPointer(start: nil, count: 0)
    var position = 0
    var failed = false

    init() {}
    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    @inline(__always)
    mutating func fixed(_ size: Int) -> UInt64 {
        guard position >= 0, size <= bytes.count - position else {
            failed = true
            return 0
        }
        if size == 8 {
            defer { position += 8 }
            return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
        }
        if size == 4 {
            defer { position += 4 }
            return UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self)))
        }
        var value: UInt64 = 0
        for index in 0 ..< size { value |= UInt64(bytes[position + index]) << (8 * index) }
        position += size
        return value
    }

    /// Most numbers in DWARF (codes, forms, line program operands) fit one byte: that case is inlined.
    @inline(__always)
    mutating func uleb() -> UInt64 {
        if position >= 0, position < bytes.count {
            let byte = bytes[position]
            if byte < 0x80 {
                position += 1
                return UInt64(byte)
            }
        }
        return longUleb()
    }

    /// A ULEB128 at `position` in `bytes`, read no further than `end`; nil when it runs past it. For readers that
    /// step over raw bytes (`DIECursor`, the abbreviation entries of `UnitRangeReader`); an SLEB128 is skipped
    /// the same way.
    @inline(__always)
    static func uleb(_ bytes: UnsafeRawBufferPointer, at position: inout Int, end: Int) -> UInt64? {
        guard position < end else { return nil }
        let first = bytes[position]
        position += 1
        if first < 0x80 { return UInt64(first) }  // most: codes, names, forms
        var value = UInt64(first & 0x7f)
        var shift: UInt64 = 7
        while position < end {
            let byte = bytes[position]
            position += 1
            if shift < 64 { value |= UInt64(byte & 0x7f) << shift }
            if byte < 0x80 { return value }
            shift += 7
        }
        return nil
    }

    private mutating func longUleb() -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position >= 0, position < bytes.count else {
                failed = true
                return 0
            }
            let byte = bytes[position]
            position += 1
            if shift < 64 { value |= UInt64(byte & 0x7f) << shift }
            shift += 7
            if byte & 0x80 == 0 { return value }
        }
    }

    mutating func sleb() -> Int64 {
        var value: Int64 = 0
        var shift: Int64 = 0
        var byte: UInt8 = 0
        repeat {
            guard position >= 0, position < bytes.count else {
                failed = true
                return 0
            }
            byte = bytes[position]
            position += 1
            if shift < 64 { value |= Int64(byte & 0x7f) << shift }
            shift += 7
        } while byte & 0x80 != 0
        if shift < 64, byte & 0x40 != 0 { value |= -1 << shift }
        return value
    }

    /// Reads one attribute's value at `position` (offsets and constants as numbers, strings and blocks
    /// skipped); nil for a form this reader does not know. A DW_FORM_indirect `form` becomes the form the
    /// attribute has: what the value means depends on it.
    mutating func attributeValue(
        _ form: inout UInt64, implicit: UInt64, version: Int, offsetSize: Int,
        addressSize: Int
    ) -> UInt64? {
        switch form {
        case 0x01: return fixed(addressSize)  // addr
        case 0x0b, 0x0c, 0x11, 0x25, 0x29: return fixed(1)  // data1, flag, ref1, strx1, addrx1
        case 0x05, 0x12, 0x26, 0x2a: return fixed(2)  // data2, ref2, strx2, addrx2
        case 0x27, 0x2b: return fixed(3)  // strx3, addrx3
        case 0x06, 0x13, 0x1c, 0x28, 0x2c: return fixed(4)  // data4, ref4, ref_sup4, strx4, addrx4
        case 0x07, 0x14, 0x20, 0x24: return fixed(8)  // data8, ref8, ref_sig8, ref_sup8
        case 0x1e:
            position += 16
            return 0  // data16
        case 0x0d: return UInt64(bitPattern: sleb())  // sdata
        // udata, ref_udata, strx, addrx, loclistx, rnglistx
        case 0x0f, 0x15, 0x1a, 0x1b, 0x22, 0x23, 0x1f01, 0x1f02: return uleb()
        // strp, sec_offset, strp_sup, line_strp, GNU alt
        case 0x0e, 0x17, 0x1d, 0x1f, 0x1f20, 0x1f21: return fixed(offsetSize)
        case 0x10: return fixed(version == 2 ? addressSize : offsetSize)  // ref_addr
        case 0x19: return 1  // flag_present
        case 0x21: return implicit  // implicit_const
        case 0x08:  // string
            let start = position
            while !failed, fixed(1) != 0 {}
            return UInt64(start)
        case 0x0a, 0x03, 0x04, 0x09, 0x18:  // block1, block2, block4, block, exprloc
            let length =
                form == 0x0a ? fixed(1) : form == 0x03 ? fixed(2) : form == 0x04 ? fixed(4) : uleb()
            guard !failed, length <= UInt64(bytes.count - position) else { return nil }
            position += Int(length)
            return 0
        case 0x16:  // indirect
            form = uleb()
            return form == 0x16
                ? nil
                : attributeValue(
                    &form, implicit: implicit, version: version, offsetSize: offsetSize, addressSize: addressSize)
        default:
            return nil
        }
    }
}
