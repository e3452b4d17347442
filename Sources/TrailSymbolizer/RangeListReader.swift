/// Address range lists: DWARF 2-4 `.debug_ranges` and DWARF 5 `.debug_rnglists`, with `.debug_addr` for indexed
/// addresses. Each call returns nil for anything it does not understand.
struct RangeListReader {
    var ranges = ByteReader(), rnglists = ByteReader(), addr = ByteReader()

    mutating func indexedAddress(_ index: UInt64, base: UInt64, size: Int) -> UInt64? {
        addr.position = Int(clamping: base &+ index &* UInt64(size))
        addr.failed = false
        let value = addr.fixed(size)
        return addr.failed ? nil : value
    }

    /// A DW_FORM_rnglistx index: the offset of its list, from the offsets table at `base`.
    mutating func rnglistsOffset(_ index: UInt64, base: UInt64, offsetSize: Int) -> UInt64? {
        rnglists.position = Int(clamping: base &+ index &* UInt64(offsetSize))
        rnglists.failed = false
        let offset = base &+ rnglists.fixed(offsetSize)
        return rnglists.failed ? nil : offset
    }

    /// Appends a DWARF 2-4 `.debug_ranges` list to `result` (a caller's buffer: lists are read per DIE); false
    /// when it cannot be read.
    mutating func rangeList(
        at offset: UInt64, base: UInt64, addressSize: Int, into result: inout [(low: UInt64, high: UInt64)]
    ) -> Bool {
        var base = base
        let all: UInt64 = addressSize == 8 ? .max : 0xffff_ffff
        ranges.position = Int(clamping: offset)
        ranges.failed = false
        while true {
            let start = ranges.fixed(addressSize)
            let end = ranges.fixed(addressSize)
            guard !ranges.failed else { return false }
            if start == 0, end == 0 { return true }
            if start == all {
                base = end
            } else if end > start {
                result.append((base &+ start, base &+ end))
            }
        }
    }

    /// The same for a DWARF 5 `.debug_rnglists` list.
    mutating func rangeList5(
        at offset: UInt64, base: UInt64, addrBase: UInt64, addressSize: Int,
        into result: inout [(low: UInt64, high: UInt64)]
    ) -> Bool {
        var base = base
        rnglists.position = Int(clamping: offset)
        rnglists.failed = false
        func add(_ start: UInt64?, _ end: UInt64?) -> Bool {
            guard let start, let end else { return false }
            if end > start { result.append((start, end)) }
            return true
        }
        while true {
            let kind = rnglists.fixed(1)
            guard !rnglists.failed else { return false }
            var ok = true
            switch kind {
            case 0: return true  // end_of_list
            case 1:  // base_addressx
                guard let value = indexedAddress(rnglists.uleb(), base: addrBase, size: addressSize) else {
                    return false
                }
                base = value
            case 2:  // startx_endx
                let start = rnglists.uleb()
                let end = rnglists.uleb()
                ok = add(
                    indexedAddress(start, base: addrBase, size: addressSize),
                    indexedAddress(end, base: addrBase, size: addressSize))
            case 3:  // startx_length
                let start = indexedAddress(rnglists.uleb(), base: addrBase, size: addressSize)
                let length = rnglists.uleb()
                ok = add(start, start.map { $0 &+ length })
            case 4:  // offset_pair
                let start = rnglists.uleb()
                let end = rnglists.uleb()
                ok = add(base &+ start, base &+ end)
            case 5: base = rnglists.fixed(addressSize)  // base_address
            case 6:  // start_end
                let start = rnglists.fixed(addressSize)
                let end = rnglists.fixed(addressSize)
                ok = add(start, end)
            case 7:  // start_length
                let start = rnglists.fixed(addressSize)
                let length = rnglists.uleb()
                ok = add(start, start &+ length)
            default:
                return false
            }
            guard ok, !rnglists.failed else { return false }
        }
    }
}
