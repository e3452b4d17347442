import CLibdw

#if canImport(Glibc)
import Glibc
#endif

/// A function's inlined calls, read from DWARF on its first lookup: the chain of frames at an address.
extension ELFImage {
    /// A DIE still to visit in a function's tree, with the inlined call it sits in (-1: none) and its depth.
    struct PendingDie { var die: Dwarf_Die, parent: Int, depth: Int }

    /// An inlined call inside a function: its address ranges, name, call site, and the inlined call it sits in.
    struct InlinedCall {
        var ranges: [(UInt64, UInt64)]
        var parent: Int?
        var depth: Int
        var name: Int32
        var site: (file: Int32, line: Int32, column: Int32)

        func contains(_ address: UInt64) -> Bool {
            for range in ranges where address >= range.0 && address < range.1 { return true }
            return false
        }
    }

    /// A function's name and inlined calls, read from DWARF on its first lookup.
    struct FunctionDetails {
        var name: Int32
        var calls: [InlinedCall]
    }

    /// Like llvm-symbolizer, the innermost inlined call whose own ranges contain an address wins, and its chain
    /// is its ancestry: enclosing blocks' and calls' ranges need not cover it (optimized code often breaks that).
    func functionDetails(_ offset: Dwarf_Off, _ unit: Int) -> FunctionDetails {
        if let known = functionCache[Int(truncatingIfNeeded: offset)] { return knownFunctions[Int(known)] }
        var details = FunctionDetails(name: -1, calls: [])
        if var function = dieAt(offset) {
            details.name = nameID(linkageName(&function))
            // (die, enclosing inlined call, depth), walked depth-first through blocks and inlined calls.
            var pending: [PendingDie] = []
            var child = Dwarf_Die()
            if dwarf_child(&function, &child) == 0 { pending.append(PendingDie(die: child, parent: -1, depth: 1)) }
            while let next = pending.popLast() {
                var die = next.die
                let parent = next.parent >= 0 ? next.parent : nil
                let depth = next.depth
                var sibling = Dwarf_Die()
                if dwarf_siblingof(&die, &sibling) == 0 {
                    pending.append(PendingDie(die: sibling, parent: next.parent, depth: depth))
                }
                let tag = dwarf_tag(&die)
                var enclosing = parent
                if tag == DW_TAG_inlined_subroutine {
                    var ranges: [(UInt64, UInt64)] = []
                    var base: Dwarf_Addr = 0
                    var start: Dwarf_Addr = 0
                    var end: Dwarf_Addr = 0
                    var position = dwarf_ranges(&die, 0, &base, &start, &end)
                    while position > 0 {
                        if end > start { ranges.append((start, end)) }
                        position = dwarf_ranges(&die, position, &base, &start, &end)
                    }
                    details.calls.append(
                        InlinedCall(
                            ranges: ranges, parent: parent, depth: depth,
                            name: nameID(linkageName(&die)), site: callSite(&die, unit)))
                    enclosing = details.calls.count - 1
                }
                if tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block {
                    var nested = Dwarf_Die()
                    if dwarf_child(&die, &nested) == 0 {
                        pending.append(PendingDie(die: nested, parent: enclosing ?? -1, depth: depth + 1))
                    }
                }
            }
        }
        knownFunctions.append(details)
        functionCache[Int(truncatingIfNeeded: offset)] = Int32(knownFunctions.count - 1)
        return details
    }

    func linkageName(_ die: inout Dwarf_Die) -> UnsafePointer<CChar>? {
        var attribute = Dwarf_Attribute()
        for name in [DW_AT_linkage_name, DW_AT_MIPS_linkage_name] {
            if dwarf_attr_integrate(&die, UInt32(name), &attribute) != nil, let text = dwarf_formstring(&attribute) {
                return text
            }
        }
        return dwarf_diename(&die)
    }

    func callSite(_ die: inout Dwarf_Die, _ unit: Int) -> (Int32, Int32, Int32) {
        var attribute = Dwarf_Attribute()
        var value: Dwarf_Word = 0
        var file: Int32 = -1
        // The call file indexes the unit's file table (libdw's table covers DWARF 4 and 5 numbering alike).
        if dwarf_attr(&die, UInt32(DW_AT_call_file), &attribute) != nil, dwarf_formudata(&attribute, &value) == 0,
            value < UInt64(units[unit].files.count)
        {
            file = units[unit].files[Int(value)]
        }
        var line: Int32 = 0
        var column: Int32 = 0
        if dwarf_attr(&die, UInt32(DW_AT_call_line), &attribute) != nil, dwarf_formudata(&attribute, &value) == 0 {
            line = Int32(truncatingIfNeeded: value)
        }
        if dwarf_attr(&die, UInt32(DW_AT_call_column), &attribute) != nil, dwarf_formudata(&attribute, &value) == 0 {
            column = Int32(truncatingIfNeeded: value)
        }
        return (file, line, column)
    }
}
