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
        /// The offset of the unit's DIE, as `dwarf_dieoffset` gives it.
        var dieOffset: UInt64
        var ranges: [(low: UInt64, high: UInt64)]
    }

    private var info = ByteReader(), abbrev = ByteReader(), ranges = ByteReader(), rnglists = ByteReader(),
        addr = ByteReader()
    /// The abbreviation tables decoded so far, and by offset their index there.
    private var tables: [AbbreviationTable] = []
    private var tableIndex = IntMap()

    /// The sections of the ELF file libdw reads (after libdw has decompressed them in place).
    init?(_ elf: OpaquePointer) {
        guard let identity = elf_getident(elf, nil), identity[Int(EI_DATA)] == ELFDATA2LSB else { return nil }
        var names = 0
        guard elf_getshdrstrndx(elf, &names) == 0 else { return nil }
        var section = elf_nextscn(elf, nil)
        while let current = section {
            defer { section = elf_nextscn(elf, current) }
            var header = GElf_Shdr()
            guard gelf_getshdr(current, &header) != nil, let name = elf_strptr(elf, names, Int(header.sh_name)) else {
                continue
            }
            let known: WritableKeyPath<UnitRangeReader, ByteReader>
            switch String(cString: name) {
            case ".debug_info": known = \.info
            case ".debug_abbrev": known = \.abbrev
            case ".debug_ranges": known = \.ranges
            case ".debug_rnglists": known = \.rnglists
            case ".debug_addr": known = \.addr
            case let other where other.hasPrefix(".zdebug"): return nil
            default: continue
            }
            guard header.sh_flags & UInt64(SHF_COMPRESSED) == 0, header.sh_type != SHT_NOBITS else { return nil }
            guard let data = elf_getdata(current, nil), let bytes = data.pointee.d_buf else { continue }
            self[keyPath: known] = ByteReader(UnsafeRawBufferPointer(start: bytes, count: data.pointee.d_size))
        }
        guard !info.bytes.isEmpty else { return nil }
    }

    /// Every unit with code, in `.debug_info` order; nil when something here is not understood.
    mutating func units() -> [Unit]? {
        var units: [Unit] = []
        var start = 0
        while start < info.bytes.count {
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
            if !found.isEmpty { units.append(Unit(dieOffset: dieOffset, ranges: found)) }
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
            let form = abbrev.uleb()
            guard !abbrev.failed else { return nil }
            if name == 0, form == 0 { break }
            let implicit = form == 0x21 ? UInt64(bitPattern: abbrev.sleb()) : 0
            guard
                let value = attributeValue(
                    form, implicit: implicit, version: version, offsetSize: offsetSize,
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
            case 0x1b, 0x29 ... 0x2c, 0x1f01: return indexedAddress(attribute.value, base: addrBase, size: addressSize)
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
        if version < 5 {
            return rangeList(at: rangesAttribute.value, base: base, addressSize: addressSize)
        }
        var offset = rangesAttribute.value
        if rangesAttribute.form == 0x23 {  // DW_FORM_rnglistx: an entry of the offsets table at the base
            rnglists.position = Int(clamping: rnglistsBase &+ offset &* UInt64(offsetSize))
            offset = rnglistsBase &+ rnglists.fixed(offsetSize)
            guard !rnglists.failed else { return nil }
        }
        return rangeList5(at: offset, base: base, addrBase: addrBase, addressSize: addressSize)
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
        abbrev.position = next
        while true {
            let entry = abbrev.uleb()
            guard !abbrev.failed, entry != 0 else {
                known.next = nil
                return nil
            }
            let tagStart = abbrev.position
            _ = abbrev.uleb()  // the tag
            abbrev.position += 1  // has children
            while true {
                let name = abbrev.uleb()
                let form = abbrev.uleb()
                if form == 0x21 { _ = abbrev.sleb() }  // the implicit constant
                guard !abbrev.failed else {
                    known.next = nil
                    return nil
                }
                if name == 0, form == 0 { break }
            }
            known.next = abbrev.position
            known.record(entry, at: tagStart)
            if entry == code { return tagStart }
        }
    }

    /// Reads one attribute's value at `info.position` (offsets and constants as numbers, strings and blocks
    /// skipped); nil for a form this reader does not know.
    private mutating func attributeValue(
        _ form: UInt64, implicit: UInt64, version: Int, offsetSize: Int,
        addressSize: Int
    ) -> UInt64? {
        switch form {
        case 0x01: return info.fixed(addressSize)  // addr
        case 0x0b, 0x0c, 0x11, 0x25, 0x29: return info.fixed(1)  // data1, flag, ref1, strx1, addrx1
        case 0x05, 0x12, 0x26, 0x2a: return info.fixed(2)  // data2, ref2, strx2, addrx2
        case 0x27, 0x2b: return info.fixed(3)  // strx3, addrx3
        case 0x06, 0x13, 0x1c, 0x28, 0x2c: return info.fixed(4)  // data4, ref4, ref_sup4, strx4, addrx4
        case 0x07, 0x14, 0x20, 0x24: return info.fixed(8)  // data8, ref8, ref_sig8, ref_sup8
        case 0x1e:
            info.position += 16
            return 0  // data16
        case 0x0d: return UInt64(bitPattern: info.sleb())  // sdata
        // udata, ref_udata, strx, addrx, loclistx, rnglistx
        case 0x0f, 0x15, 0x1a, 0x1b, 0x22, 0x23, 0x1f01, 0x1f02: return info.uleb()
        // strp, sec_offset, strp_sup, line_strp, GNU alt
        case 0x0e, 0x17, 0x1d, 0x1f, 0x1f20, 0x1f21: return info.fixed(offsetSize)
        case 0x10: return info.fixed(version == 2 ? addressSize : offsetSize)  // ref_addr
        case 0x19: return 1  // flag_present
        case 0x21: return implicit  // implicit_const
        case 0x08:  // string
            while !info.failed, info.fixed(1) != 0 {}
            return 0
        case 0x0a, 0x03, 0x04, 0x09, 0x18:  // block1, block2, block4, block, exprloc
            let length =
                form == 0x0a ? info.fixed(1) : form == 0x03 ? info.fixed(2) : form == 0x04 ? info.fixed(4) : info.uleb()
            guard !info.failed, length <= UInt64(info.bytes.count - info.position) else { return nil }
            info.position += Int(length)
            return 0
        case 0x16:  // indirect
            let actual = info.uleb()
            return actual == 0x16
                ? nil
                : attributeValue(
                    actual, implicit: implicit, version: version, offsetSize: offsetSize,
                    addressSize: addressSize)
        default:
            return nil
        }
    }

    // MARK: range lists

    private mutating func indexedAddress(_ index: UInt64, base: UInt64, size: Int) -> UInt64? {
        addr.position = Int(clamping: base &+ index &* UInt64(size))
        let value = addr.fixed(size)
        return addr.failed ? nil : value
    }

    /// A DWARF 2-4 `.debug_ranges` list.
    private mutating func rangeList(at offset: UInt64, base: UInt64, addressSize: Int) -> [(low: UInt64, high: UInt64)]?
    {
        var result: [(low: UInt64, high: UInt64)] = []
        var base = base
        let all: UInt64 = addressSize == 8 ? .max : 0xffff_ffff
        ranges.position = Int(clamping: offset)
        while true {
            let start = ranges.fixed(addressSize)
            let end = ranges.fixed(addressSize)
            guard !ranges.failed else { return nil }
            if start == 0, end == 0 { return result }
            if start == all {
                base = end
            } else if end > start {
                result.append((base &+ start, base &+ end))
            }
        }
    }

    /// A DWARF 5 `.debug_rnglists` list.
    private mutating func rangeList5(at offset: UInt64, base: UInt64, addrBase: UInt64, addressSize: Int) -> [(
        low: UInt64, high: UInt64
    )]? {
        var result: [(low: UInt64, high: UInt64)] = []
        var base = base
        rnglists.position = Int(clamping: offset)
        func add(_ start: UInt64?, _ end: UInt64?) -> Bool {
            guard let start, let end else { return false }
            if end > start { result.append((start, end)) }
            return true
        }
        while true {
            let kind = rnglists.fixed(1)
            guard !rnglists.failed else { return nil }
            var ok = true
            switch kind {
            case 0: return result  // end_of_list
            case 1:  // base_addressx
                guard let value = indexedAddress(rnglists.uleb(), base: addrBase, size: addressSize) else { return nil }
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
                return nil
            }
            guard ok, !rnglists.failed else { return nil }
        }
    }
}

/// Where each code's entry of an abbreviation table is, as far as the table has been decoded.
private final class AbbreviationTable {
    let offset: UInt64
    /// By code: the offset of the entry's tag, or -1. Codes are small and nearly dense.
    var positions: [Int] = []
    /// Codes too large for `positions`, which no compiler seen here writes.
    var large: [(code: UInt64, position: Int)] = []
    /// Where decoding goes on; nil at the table's end.
    var next: Int?

    init(offset: UInt64) {
        self.offset = offset
        next = Int(clamping: offset)
    }

    func position(of code: UInt64) -> Int? {
        if code < positions.count, positions[Int(code)] >= 0 { return positions[Int(code)] }
        return code >= 1 << 16 ? large.first { $0.code == code }?.position : nil
    }

    func record(_ code: UInt64, at position: Int) {
        guard code < 1 << 16 else {
            if !large.contains(where: { $0.code == code }) { large.append((code, position)) }
            return
        }
        if Int(code) >= positions.count {
            positions.append(
                contentsOf: repeatElement(
                    -1, count: Swift.max(Int(code) + 1, 2 * positions.count, 64) - positions.count))
        }
        if positions[Int(code)] < 0 { positions[Int(code)] = position }
    }
}

/// Little-endian reads from a section; reading past the end sets `failed` and yields zeros.
struct ByteReader {
    var bytes = UnsafeRawBufferPointer(start: nil, count: 0)
    var position = 0
    var failed = false

    init() {}
    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

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

    mutating func uleb() -> UInt64 {
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
}
