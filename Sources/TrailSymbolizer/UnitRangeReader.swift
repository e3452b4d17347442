import CLibdw

#if canImport(Glibc)
import Glibc
#endif

/// The address ranges of every compile unit, read straight from `.debug_info`: only each unit's header and
/// first DIE, with each abbreviation table decoded once.
///
/// libdw can give the same through `dwfl_module_nextcu` and `dwarf_ranges`, but it interns units one after
/// another, and for a DWARF 4 unit it parses the abbreviation table from the start up to the unit's DIE.
/// swiftc puts a skeleton unit per imported Clang module after each file's unit, sharing the file's table
/// with codes near a hundred, so that walk is most of a one-crash run. Read here, libdw then only interns
/// the units up to the last one an address needs.
///
/// Anything this reader does not know (a form, a unit version, compressed or big-endian sections) makes it
/// return nil, and the caller walks the units with libdw instead.
struct UnitRangeReader {
    struct Unit {
        /// The offset of the unit's header, and of its DIE, as `dwarf_dieoffset` gives it.
        var start: UInt64
        var dieOffset: UInt64
        var ranges: [(low: UInt64, high: UInt64)]
    }

    private var info = ByteReader(), abbrev = ByteReader()
    private var lists = RangeListReader()
    /// The abbreviation tables decoded so far, and by offset their index there.
    private var tables: [AbbreviationTable] = []
    private var tableIndex = IntMap()

    /// nil when a section it reads is unreadable here, or there is no `.debug_info`.
    init?(_ sections: DwarfSections) {
        guard sections.readable([.info, .abbrev, .ranges, .rnglists, .addr]), !sections[.info].bytes.isEmpty else {
            return nil
        }
        (info, abbrev) = (sections[.info], sections[.abbrev])
        lists = RangeListReader(ranges: sections[.ranges], rnglists: sections[.rnglists], addr: sections[.addr])
    }

    /// Every unit with code, in `.debug_info` order; nil when something here is not understood.
    mutating func units() -> [Unit]? {
        var units: [Unit] = []
        var start = 0
        while start < info.bytes.count {
            let unitStart = start
            info.position = start
            var offsetSize = 4
            var length = UInt64(info.fixed(4))
            if length == 0xffff_ffff {
                offsetSize = 8
                length = info.fixed(8)
            }
            guard !info.failed, length >= 2, length <= UInt64(info.bytes.count - info.position) else { return nil }
            let end = info.position + Int(length)
            start = end
            let version = Int(info.fixed(2))
            var kind = 1  // DW_UT_compile
            let abbrevOffset: UInt64
            let addressSize: Int
            switch version {
            case 2 ... 4:
                abbrevOffset = info.fixed(offsetSize)
                addressSize = Int(info.fixed(1))
            case 5:
                kind = Int(info.fixed(1))
                addressSize = Int(info.fixed(1))
                abbrevOffset = info.fixed(offsetSize)
                switch kind {
                case 4, 5: info.position += 8  // skeleton and split units: the DWO id
                case 2, 6: continue  // type units hold no code
                default: break
                }
            default:
                return nil
            }
            guard !info.failed, addressSize == 8 || addressSize == 4 else { return nil }
            let dieOffset = UInt64(info.position)
            let code = info.uleb()
            guard code != 0 else { continue }
            guard
                let found = ranges(
                    of: code, table: abbrevOffset, version: version, offsetSize: offsetSize,
                    addressSize: addressSize, end: end)
            else { return nil }
            if !found.isEmpty { units.append(Unit(start: UInt64(unitStart), dieOffset: dieOffset, ranges: found)) }
        }
        return units
    }

    // MARK: one unit's DIE

    /// Decodes the DIE at `info.position` and returns its ranges (empty when it has none).
    private mutating func ranges(
        of code: UInt64, table: UInt64, version: Int, offsetSize: Int, addressSize: Int,
        end: Int
    ) -> [(low: UInt64, high: UInt64)]? {
        guard let specs = abbreviation(code, table: table) else { return nil }
        abbrev.position = specs
        _ = abbrev.uleb()  // tag
        abbrev.position += 1  // has children
        var low: (form: UInt64, value: UInt64)?
        var high: (form: UInt64, value: UInt64)?
        var rangesAttribute: (form: UInt64, value: UInt64)?
        // Without base attributes, the first entries after each section's header (8 and 12 bytes, or 16 and 20
        // in 64-bit DWARF).
        var addrBase = UInt64(2 * offsetSize)
        var rnglistsBase = UInt64(2 * offsetSize + 4)
        while true {
            let name = abbrev.uleb()
            var form = abbrev.uleb()
            guard !abbrev.failed else { return nil }
            if name == 0, form == 0 { break }
            let implicit = form == 0x21 ? UInt64(bitPattern: abbrev.sleb()) : 0
            guard
                let value = info.attributeValue(
                    &form, implicit: implicit, version: version, offsetSize: offsetSize,
                    addressSize: addressSize), !info.failed, info.position <= end
            else { return nil }
            switch name {
            case 0x11: low = (form, value)  // DW_AT_low_pc
            case 0x12: high = (form, value)  // DW_AT_high_pc
            case 0x55: rangesAttribute = (form, value)  // DW_AT_ranges
            case 0x73, 0x2133: addrBase = value  // DW_AT_addr_base, DW_AT_GNU_addr_base
            case 0x74: rnglistsBase = value  // DW_AT_rnglists_base
            default: break
            }
        }
        func address(_ attribute: (form: UInt64, value: UInt64)) -> UInt64? {
            switch attribute.form {
            case 0x01: return attribute.value  // DW_FORM_addr
            case 0x1b, 0x29 ... 0x2c, 0x1f01:
                return lists.indexedAddress(attribute.value, base: addrBase, size: addressSize)
            default: return nil
            }
        }
        let base = low.flatMap(address) ?? 0
        if let low, let high {
            guard let start = address(low) else { return nil }
            // A constant high_pc is the length (DWARF 4 and later); an address one is the end.
            let stop =
                high.form == 0x01 || high.form == 0x1b || (0x29 ... 0x2c).contains(high.form) || high.form == 0x1f01
                ? address(high) : start &+ high.value
            guard let stop else { return nil }
            return stop > start ? [(start, stop)] : []
        }
        guard let rangesAttribute else { return [] }
        var result: [(low: UInt64, high: UInt64)] = []
        if version < 5 {
            return lists.rangeList(at: rangesAttribute.value, base: base, addressSize: addressSize, into: &result)
                ? result : nil
        }
        var offset = rangesAttribute.value
        if rangesAttribute.form == 0x23 {  // DW_FORM_rnglistx: an entry of the offsets table at the base
            guard let entry = lists.rnglistsOffset(offset, base: rnglistsBase, offsetSize: offsetSize) else {
                return nil
            }
            offset = entry
        }
        return lists.rangeList5(at: offset, base: base, addrBase: addrBase, addressSize: addressSize, into: &result)
            ? result : nil
    }

    /// Where the specs of `code` begin in the table at `table`, decoding the table only as far as needed, once.
    private mutating func abbreviation(_ code: UInt64, table: UInt64) -> Int? {
        let known: AbbreviationTable
        if let last = tables.last, last.offset == table {  // a file's unit and its skeletons share one
            known = last
        } else if let index = tableIndex[Int(truncatingIfNeeded: table)], tables[Int(index)].offset == table {
            known = tables[Int(index)]
        } else {
            known = AbbreviationTable(offset: table)
            tables.append(known)
            tableIndex[Int(truncatingIfNeeded: table)] = Int32(tables.count - 1)
        }
        if let position = known.position(of: code) { return position }
        guard let next = known.next else { return nil }
        // Entries are decoded from the raw bytes: a file's table runs to a hundred entries (its Clang module
        // skeletons' codes), and decoding those was most of reading the units' ranges.
        let (bytes, end) = (abbrev.bytes, abbrev.bytes.count)
        var at = next
        while true {
            guard let entry = ByteReader.uleb(bytes, at: &at, end: end), entry != 0 else {
                known.next = nil
                return nil
            }
            let tagStart = at
            guard ByteReader.uleb(bytes, at: &at, end: end) != nil else {  // the tag
                known.next = nil
                return nil
            }
            at += 1  // has children
            while true {
                // A name and a form, and an implicit constant's value (skipped).
                guard let name = ByteReader.uleb(bytes, at: &at, end: end),
                    let form = ByteReader.uleb(bytes, at: &at, end: end),
                    form != 0x21 || ByteReader.uleb(bytes, at: &at, end: end) != nil
                else {
                    known.next = nil
                    return nil
                }
                if name == 0, form == 0 { break }
            }
            known.next = at
            known.record(entry, at: tagStart)
            if entry == code { return tagStart }
        }
    }
}
