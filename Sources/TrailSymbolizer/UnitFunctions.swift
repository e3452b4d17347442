import CLibdw

#if canImport(Glibc)
import Glibc
#endif

/// One compile unit's functions with code, by address: each range and the offset of its subprogram DIE.
struct UnitFunctions {
    /// `tree`: the function's tree in its unit's `InlineCalls`, as `UnitWalk` reads them; -1 when read with
    /// libdw (then its tree is read on the function's first lookup).
    struct Range { var low: UInt64, high: UInt64, die: Dwarf_Off, tree: Int32 = -1 }

    private(set) var ranges: [Range] = []

    init() {}

    /// Subprograms anywhere in the unit's tree (Swift nests them under a module DIE), read with libdw.
    init(_ unitDie: inout Dwarf_Die) {
        var found: [Range] = []
        var pending: [Dwarf_Die] = []
        var child = Dwarf_Die()
        if dwarf_child(&unitDie, &child) == 0 { pending.append(child) }
        while var die = pending.popLast() {
            var sibling = Dwarf_Die()
            if dwarf_siblingof(&die, &sibling) == 0 { pending.append(sibling) }
            let tag = dwarf_tag(&die)
            if tag == DW_TAG_subprogram {
                let offset = dwarf_dieoffset(&die)
                for range in LibdwDIE.ranges(&die) {
                    found.append(Range(low: range.low, high: range.high, die: offset))
                }
            }
            if Self.nests(UInt64(tag)) {
                var nested = Dwarf_Die()
                if dwarf_child(&die, &nested) == 0 { pending.append(nested) }
            }
        }
        self.init(sorting: found)
    }

    /// The ranges `UnitWalk` found, sorted.
    init(sorting found: [Range]) {
        ranges = found
        ranges.sort { ($0.low, $1.high) < ($1.low, $0.high) }
    }

    /// Whether functions inside a DIE of this tag are looked for: Swift nests closures' subprograms inside their
    /// function's, and functions inside modules and types.
    static func nests(_ tag: UInt64) -> Bool {
        switch Int(tag) {
        case DW_TAG_subprogram, DW_TAG_module, DW_TAG_namespace, DW_TAG_structure_type, DW_TAG_class_type,
            DW_TAG_enumeration_type, DW_TAG_union_type, DW_TAG_lexical_block:
            return true
        default: return false
        }
    }

    /// The innermost function range holding an address.
    func function(at address: UInt64) -> Range? {
        AddressSearch.containing(address, in: ranges, lookBack: 16, start: \.low, end: \.high)
    }
}
