#if canImport(Glibc)
import Glibc
#endif

/// Reads DIEs straight from `.debug_info`, for the walk over a unit's functions and their inlined calls
/// (`UnitWalk`) and for names. libdw answers the same through `dwarf_siblingof` and `dwarf_attr`,
/// which take a lock and search the abbreviation per DIE and per attribute; decoding each DIE once here is
/// several times faster.
///
/// Every method returns nil for anything it does not understand (a form, a reference out of the unit, a
/// damaged table), and the caller asks libdw instead.
struct DIEReader {
    /// A unit's header and the attributes of its DIE that its other DIEs need.
    struct Unit {
        var start = 0, end = 0, dieOffset = 0
        var version = 0, offsetSize = 4, addressSize = 8
        /// Into `tables`, and the table's offset in `.debug_abbrev`.
        var table = 0
        var abbrevOffset: UInt64 = 0
        var addrBase: UInt64 = 0, rnglistsBase: UInt64 = 0
        var strOffsetsBase: UInt64?
        /// The base address of its range lists: its DIE's low PC.
        var base: UInt64 = 0
        /// Its line program's offset in `.debug_line`, and its compile directory (in the section: a plain value
        /// keeps the `Unit` that every DIE read takes free of reference counting).
        var lineOffset: UInt64?
        var directoryText: UnsafePointer<CChar>?
        var directory: String? { directoryText.map { String(cString: $0) } }
    }

    /// An attribute's form (0: absent) and value as `ByteReader.attributeValue` reads it.
    struct Attribute {
        var form: UInt64 = 0, value: UInt64 = 0
        var present: Bool { form != 0 }
    }

    /// A DIE's tag, and the attributes the walks look at.
    struct DIE {
        var tag: UInt64 = 0
        var hasChildren = false
        var low = Attribute(), entry = Attribute()
        var linkageName = Attribute(), mipsLinkageName = Attribute(), name = Attribute()
        var origin = Attribute(), specification = Attribute()
        var addrBase = Attribute(), rnglistsBase = Attribute(), strOffsetsBase = Attribute()
        var statementList = Attribute(), compDir = Attribute()
    }

    private var info: ByteReader
    private let abbrev: ByteReader, str: ByteReader, strOffsets: ByteReader, lineStr: ByteReader, line: ByteReader
    private var lists: RangeListReader
    private var tables: [Abbreviations] = []
    private var tableIndex = IntMap()
    /// Units that references led into, by header offset: an index into `otherUnitList`.
    private var otherUnits = IntMap()
    private var otherUnitList: [Unit] = []
    /// The names `linkageName` found through abstract origins, by the origin's offset.
    private var originNames = IntMap()
    private var originNameList: [UnsafePointer<CChar>?] = []

    /// nil when a section it reads cannot be read here.
    init?(_ sections: DwarfSections) {
        guard sections.readable([.info, .abbrev, .ranges, .rnglists, .addr, .str, .strOffsets, .lineStr, .line]) else {
            return nil
        }
        info = sections[.info]
        abbrev = sections[.abbrev]
        str = sections[.str]
        strOffsets = sections[.strOffsets]
        lineStr = sections[.lineStr]
        line = sections[.line]
        lists = RangeListReader(ranges: sections[.ranges], rnglists: sections[.rnglists], addr: sections[.addr])
    }

    // MARK: units and DIEs

    /// The unit whose header is at `start`.
    mutating func unit(at start: UInt64) -> Unit? {
        var unit = Unit()
        unit.start = Int(clamping: start)
        info.failed = false
        info.position = unit.start
        var length = info.fixed(4)
        if length == 0xffff_ffff {
            unit.offsetSize = 8
            length = info.fixed(8)
        }
        guard !info.failed, length <= UInt64(info.bytes.count - info.position) else { return nil }
        unit.end = info.position + Int(length)
        unit.version = Int(info.fixed(2))
        let abbrevOffset: UInt64
        switch unit.version {
        case 2 ... 4:
            abbrevOffset = info.fixed(unit.offsetSize)
            unit.addressSize = Int(info.fixed(1))
        case 5:
            guard info.fixed(1) == 1 else { return nil }  // DW_UT_compile only
            unit.addressSize = Int(info.fixed(1))
            abbrevOffset = info.fixed(unit.offsetSize)
        default:
            return nil
        }
        guard !info.failed, unit.addressSize == 8 || unit.addressSize == 4, let table = table(at: abbrevOffset)
        else { return nil }
        unit.table = table
        unit.abbrevOffset = abbrevOffset
        unit.dieOffset = info.position
        // Without base attributes, the first entries after each section's header, as `UnitRangeReader` has it.
        unit.addrBase = UInt64(2 * unit.offsetSize)
        unit.rnglistsBase = UInt64(2 * unit.offsetSize + 4)
        guard let die = readDIE(unit), die.tag != 0, !die.entry.present || die.low.present else { return nil }
        if die.addrBase.present { unit.addrBase = die.addrBase.value }
        if die.rnglistsBase.present { unit.rnglistsBase = die.rnglistsBase.value }
        if die.strOffsetsBase.present { unit.strOffsetsBase = die.strOffsetsBase.value }
        if die.low.present {
            guard let base = address(die.low, unit) else { return nil }
            unit.base = base
        }
        if die.statementList.present {
            guard [0x06, 0x07, 0x17].contains(die.statementList.form) else { return nil }  // data4, data8, sec_offset
            unit.lineOffset = die.statementList.value
        }
        if die.compDir.present {
            guard let text = string(die.compDir, unit) else { return nil }
            unit.directoryText = text
        }
        return unit
    }

    /// A unit's abbreviation table, decoded.
    func abbreviations(_ unit: Unit) -> Abbreviations { tables[unit.table] }

    /// Takes a table another reader decoded (a `BatchWorker`'s), unless this one has it.
    mutating func adopt(_ table: Abbreviations, at offset: UInt64) {
        guard tableIndex[Int(truncatingIfNeeded: offset)] == nil else { return }
        tables.append(table)
        tableIndex[Int(truncatingIfNeeded: offset)] = Int32(tables.count - 1)
    }

    private mutating func table(at offset: UInt64) -> Int? {
        if let known = tableIndex[Int(truncatingIfNeeded: offset)] { return Int(known) }
        guard let table = Abbreviations(abbrev, at: offset) else { return nil }
        tables.append(table)
        tableIndex[Int(truncatingIfNeeded: offset)] = Int32(tables.count - 1)
        return tables.count - 1
    }

    /// Decodes the DIE at `position` in `unit` (tag 0: a null entry ending a list of children).
    mutating func readDIE(at position: Int? = nil, _ unit: Unit) -> DIE? {
        if let position { info.position = position }
        info.failed = false
        guard info.position < unit.end else { return nil }
        var die = DIE()
        let code = info.uleb()
        guard !info.failed else { return nil }
        if code == 0 { return die }
        guard let entry = tables[unit.table].entry(code) else { return nil }
        die.tag = entry.tag
        die.hasChildren = entry.hasChildren
        let read = readAttributes(entry, unit) { name, attribute in
            switch name {
            case 0x03: die.name = attribute
            case 0x10: die.statementList = attribute
            case 0x11: die.low = attribute
            case 0x1b: die.compDir = attribute
            case 0x31: die.origin = attribute
            case 0x47: die.specification = attribute
            case 0x52: die.entry = attribute
            case 0x6e: die.linkageName = attribute
            case 0x72: die.strOffsetsBase = attribute
            case 0x73, 0x2133: die.addrBase = attribute
            case 0x74: die.rnglistsBase = attribute
            case 0x2007: die.mipsLinkageName = attribute
            default: break
            }
        }
        return read ? die : nil
    }

    /// Reads a DIE's attributes in order, each handed to `body` as an `Attribute` (an indirect one with the form
    /// it has) of its spec's name; false when one cannot be read.
    @inline(__always)
    private mutating func readAttributes(
        _ entry: Abbreviations.Entry, _ unit: Unit, _ body: (UInt64, Attribute) -> Void
    ) -> Bool {
        for index in entry.specs {
            let spec = tables[unit.table].specs[index]
            var form = spec.form
            guard
                let value = info.attributeValue(
                    &form, implicit: spec.implicit, version: unit.version, offsetSize: unit.offsetSize,
                    addressSize: unit.addressSize), !info.failed, info.position <= unit.end
            else { return false }
            body(spec.name, Attribute(form: form, value: value))
        }
        return true
    }

    /// The attributes `ranges` reads.
    struct Extent { var low = Attribute(), high = Attribute(), ranges = Attribute() }

    /// What `UnitWalk` reads of a subprogram or an inlined call: its extent and call site.
    struct Site {
        var extent = Extent(), file = Attribute(), line = Attribute(), column = Attribute()

        /// The field an attribute goes to (-1: none), as `Abbreviations.Spec.siteField` keeps it.
        static func field(_ name: UInt64) -> Int {
            switch name {
            case 0x11: return 0  // low_pc
            case 0x12: return 1  // high_pc
            case 0x55: return 2  // ranges
            case 0x58: return 3  // call_file
            case 0x59: return 4  // call_line
            case 0x57: return 5  // call_column
            default: return -1
            }
        }

        @inline(__always)
        mutating func set(_ field: Int8, _ attribute: Attribute) {
            switch field {
            case 0: extent.low = attribute
            case 1: extent.high = attribute
            case 2: extent.ranges = attribute
            case 3: file = attribute
            case 4: line = attribute
            case 5: column = attribute
            default: break
            }
        }
    }

    /// Where the next DIE starts.
    var position: Int { info.position }

    /// `.debug_info`, for a `DIECursor`.
    var infoBytes: UnsafeRawBufferPointer { info.bytes }

    /// The unit's line program, decoded; empty without one, nil when it cannot be read here.
    func lineProgram(_ unit: Unit) -> LineProgramReader? {
        guard let offset = unit.lineOffset else { return LineProgramReader() }
        return LineProgramReader(
            line, offset: offset, addressSize: unit.addressSize, compDir: unit.directory, str: str, lineStr: lineStr)
    }

    // MARK: attributes

    /// An address attribute's value, as `dwarf_formaddr` reads it.
    mutating func address(_ attribute: Attribute, _ unit: Unit) -> UInt64? {
        switch attribute.form {
        case 0x01: return attribute.value  // DW_FORM_addr
        case 0x1b, 0x29 ... 0x2c, 0x1f01:
            return lists.indexedAddress(attribute.value, base: unit.addrBase, size: unit.addressSize)
        default: return nil
        }
    }

    /// Appends a DIE's address ranges, as `dwarf_ranges` gives them with empty ones left out, to `result` (a
    /// caller's buffer: the walk reads ranges per DIE); false when they cannot be read.
    mutating func ranges(_ die: Extent, _ unit: Unit, into result: inout [(low: UInt64, high: UInt64)]) -> Bool {
        if die.low.present, die.high.present {
            guard let start = address(die.low, unit) else { return false }
            let stop: UInt64?
            switch die.high.form {
            case 0x01, 0x1b, 0x29, 0x2a, 0x2b, 0x2c, 0x1f01: stop = address(die.high, unit)  // an address
            default: stop = start &+ die.high.value  // a length
            }
            guard let stop else { return false }
            if stop > start { result.append((start, stop)) }
            return true
        }
        guard die.ranges.present else { return true }
        if unit.version < 5 {
            return lists.rangeList(at: die.ranges.value, base: unit.base, addressSize: unit.addressSize, into: &result)
        }
        var offset = die.ranges.value
        if die.ranges.form == 0x23 {  // DW_FORM_rnglistx
            guard let entry = lists.rnglistsOffset(offset, base: unit.rnglistsBase, offsetSize: unit.offsetSize)
            else { return false }
            offset = entry
        }
        return lists.rangeList5(
            at: offset, base: unit.base, addrBase: unit.addrBase, addressSize: unit.addressSize, into: &result)
    }

    /// A constant attribute as `dwarf_formudata` reads it; nil when absent or not a constant.
    func constant(_ attribute: Attribute) -> UInt64? {
        switch attribute.form {
        case 0x0b, 0x05, 0x06, 0x07, 0x0f, 0x0d, 0x21: return attribute.value
        default: return nil
        }
    }

    /// A string attribute as `dwarf_formstring` reads it: `.some(nil)` when it is not a string, nil when it is one
    /// this reader cannot find (a supplementary file's).
    func string(_ attribute: Attribute, _ unit: Unit) -> UnsafePointer<CChar>?? {
        func at(_ section: ByteReader, _ offset: UInt64) -> UnsafePointer<CChar>?? {
            // A string must end inside its section: its readers take it as a C string.
            guard offset < UInt64(section.bytes.count), let base = section.bytes.baseAddress,
                memchr(base + Int(offset), 0, section.bytes.count - Int(offset)) != nil
            else { return nil }
            return .some((base + Int(offset)).assumingMemoryBound(to: CChar.self))
        }
        switch attribute.form {
        case 0x08: return at(info, attribute.value)  // string: where it starts
        case 0x0e: return at(str, attribute.value)  // strp
        case 0x1f: return at(lineStr, attribute.value)  // line_strp
        case 0x1a, 0x25 ... 0x28, 0x1f02:  // strx
            guard let base = unit.strOffsetsBase else { return nil }
            var offsets = strOffsets
            offsets.position = Int(clamping: base &+ attribute.value &* UInt64(unit.offsetSize))
            let offset = offsets.fixed(unit.offsetSize)
            return offsets.failed ? nil : at(str, offset)
        case 0x1d, 0x1f21: return nil  // strp_sup, GNU_strp_alt
        default: return .some(nil)
        }
    }

    /// The linkage name, else the name, also from the abstract origin or specification, as `dwarf_attr_integrate`
    /// finds them: `.some(nil)` when there is none.
    mutating func linkageName(_ die: DIE, _ unit: Unit) -> UnsafePointer<CChar>?? {
        // An inlined call without names of its own has its abstract origin's: many calls share one.
        if !die.linkageName.present, !die.mipsLinkageName.present, !die.name.present, die.origin.present,
            let target = reference(die.origin, unit)
        {
            if let known = originNames[target] { return .some(originNameList[Int(known)]) }
            guard let found = chainedName(die, unit) else { return nil }
            originNameList.append(found)
            originNames[target] = Int32(originNameList.count - 1)
            return .some(found)
        }
        return chainedName(die, unit)
    }

    private mutating func chainedName(_ die: DIE, _ unit: Unit) -> UnsafePointer<CChar>?? {
        for pick in 0 ..< 3 {
            var current = die
            var currentUnit = unit
            var found: Attribute?
            for _ in 0 ... 16 {
                let attribute = pick == 0 ? current.linkageName : pick == 1 ? current.mipsLinkageName : current.name
                if attribute.present {
                    found = attribute
                    break
                }
                let reference = current.origin.present ? current.origin : current.specification
                guard reference.present else { break }
                guard let target = self.reference(reference, currentUnit),
                    let targetUnit = self.unit(containing: target, from: currentUnit),
                    let next = readDIE(at: target, targetUnit), next.tag != 0
                else { return nil }
                current = next
                currentUnit = targetUnit
            }
            guard let found else { continue }
            guard let text = string(found, currentUnit) else { return nil }
            if let text { return .some(text) }
        }
        return .some(nil)
    }

    /// The unit holding a DIE offset (a DW_FORM_ref_addr may point into another), found by walking the units'
    /// headers from `unit`, or from the start when the offset is before it.
    private mutating func unit(containing offset: Int, from unit: Unit) -> Unit? {
        if offset >= unit.dieOffset, offset < unit.end { return unit }
        var start = offset >= unit.end ? unit.end : 0
        while start < info.bytes.count, start <= offset {
            if let known = otherUnits[start] {
                let found = otherUnitList[Int(known)]
                if offset < found.end { return offset >= found.dieOffset ? found : nil }
                start = found.end
                continue
            }
            info.position = start
            info.failed = false
            var length = info.fixed(4)
            var headerSize = 4
            if length == 0xffff_ffff {
                length = info.fixed(8)
                headerSize = 12
            }
            guard !info.failed, length <= UInt64(info.bytes.count - info.position) else { return nil }
            let end = start + headerSize + Int(length)
            if offset < end {
                guard let found = self.unit(at: UInt64(start)) else { return nil }
                otherUnitList.append(found)
                otherUnits[start] = Int32(otherUnitList.count - 1)
                return offset >= found.dieOffset ? found : nil
            }
            start = end
        }
        return nil
    }

    /// A reference's DIE offset: in `unit` for a unit-relative form, anywhere in `.debug_info` for `ref_addr`.
    private func reference(_ attribute: Attribute, _ unit: Unit) -> Int? {
        let target: UInt64
        switch attribute.form {
        case 0x11, 0x12, 0x13, 0x14, 0x15: target = UInt64(unit.start) &+ attribute.value  // ref1-8, ref_udata
        case 0x10: target = attribute.value  // ref_addr
        default: return nil
        }
        guard attribute.form == 0x10 || target >= UInt64(unit.dieOffset) && target < UInt64(unit.end) else {
            return nil
        }
        return Int(clamping: target)
    }
}
