import CLibdw

#if canImport(Glibc)
import Glibc
#endif

/// A function's name and inlined calls, read from DWARF on its first lookup: the chain of frames at an address.
struct InlineTree {
    /// An inlined call inside a function: its name, call site, the inlined call it sits in and its depth there.
    struct Call {
        var parent: Int?
        var depth: Int
        var name: Int32
        var site: (file: Int32, line: Int32, column: Int32)
    }

    /// An address range of an inlined call (`calls[call]`). Kept apart from the calls, in their order, so that a
    /// lookup scans plain values.
    struct CallRange { var low: UInt64, high: UInt64, call: Int }

    /// A DIE still to visit in a function's tree, with the inlined call it sits in (-1: none) and its depth.
    private struct PendingDie { var die: Dwarf_Die, parent: Int, depth: Int }

    var name: Int32 = -1
    var calls: [Call] = []
    var ranges: [CallRange] = []

    /// Reads the subprogram at `offset`: call sites' files index `unitFiles`, names are interned into `names`.
    init(offset: Dwarf_Off, dwarf: OpaquePointer?, unitFiles: [Int32], names: inout InternedNames) {
        guard var function = LibdwDIE.at(offset, in: dwarf) else { return }
        name = names.nameID(LibdwDIE.linkageName(&function))
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
                for range in LibdwDIE.ranges(&die) {
                    ranges.append(CallRange(low: range.low, high: range.high, call: calls.count))
                }
                calls.append(
                    Call(
                        parent: parent, depth: depth,
                        name: names.nameID(LibdwDIE.linkageName(&die)), site: Self.callSite(&die, unitFiles)))
                enclosing = calls.count - 1
            }
            if tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block {
                var nested = Dwarf_Die()
                if dwarf_child(&die, &nested) == 0 {
                    pending.append(PendingDie(die: nested, parent: enclosing ?? -1, depth: depth + 1))
                }
            }
        }
    }

    /// The same, read with `DIEReader`; nil when it cannot.
    init?(
        offset: Dwarf_Off, unit: DIEReader.Unit, reader: inout DIEReader, unitFiles: [Int32],
        names: inout InternedNames
    ) {
        guard let function = reader.readDIE(at: Int(clamping: offset), unit), function.tag != 0 else { return nil }
        let children = reader.position
        guard let linkage = reader.linkageName(function, unit) else { return nil }
        reader.seek(children)  // the name may be the abstract origin's, elsewhere
        name = names.nameID(linkage)
        // Per open list of children: whether its DIEs are walked (blocks and inlined calls), and the inlined call
        // they sit in (-1: none). Their depth is the list's.
        var levels: [(walked: Bool, parent: Int)] = function.hasChildren ? [(true, -1)] : []
        while let level = levels.last {
            let offset = reader.position
            guard offset < unit.end else { break }
            guard let (tag, hasChildren) = reader.skipDIE(unit) else { return nil }
            let next = reader.position
            if tag == 0 {
                levels.removeLast()
                continue
            }
            var enclosing = level.parent
            if level.walked, tag == 0x1d {  // DW_TAG_inlined_subroutine: decoded in full
                guard let die = reader.readDIE(at: offset, unit), let found = reader.ranges(die, unit),
                    let callee = reader.linkageName(die, unit)
                else { return nil }
                reader.seek(next)
                var file: Int32 = -1
                if let value = reader.constant(die.callFile), value < UInt64(unitFiles.count) {
                    file = unitFiles[Int(value)]
                }
                let line = reader.constant(die.callLine).map { Int32(truncatingIfNeeded: $0) } ?? 0
                let column = reader.constant(die.callColumn).map { Int32(truncatingIfNeeded: $0) } ?? 0
                for range in found { ranges.append(CallRange(low: range.low, high: range.high, call: calls.count)) }
                calls.append(
                    Call(
                        parent: level.parent >= 0 ? level.parent : nil,
                        depth: levels.count, name: names.nameID(callee), site: (file, line, column)))
                enclosing = calls.count - 1
            }
            if hasChildren { levels.append((level.walked && (tag == 0x1d || tag == 0x0b), enclosing)) }
        }
    }

    /// The tree with its names and call sites' files numbered anew: `name` maps a name number, `file` a file
    /// number that is not -1.
    func renumbered(name: (Int32) -> Int32, file: (Int32) -> Int32) -> InlineTree {
        var tree = self
        tree.name = self.name >= 0 ? name(self.name) : -1
        for index in tree.calls.indices {
            if tree.calls[index].name >= 0 { tree.calls[index].name = name(tree.calls[index].name) }
            if tree.calls[index].site.file >= 0 { tree.calls[index].site.file = file(tree.calls[index].site.file) }
        }
        return tree
    }

    /// Like llvm-symbolizer, the innermost inlined call whose own ranges contain an address wins, and its chain
    /// is its ancestry: enclosing blocks' and calls' ranges need not cover it (optimized code often breaks that).
    func innermost(_ address: UInt64) -> Int? {
        var innermost = -1
        var depth = 0
        for range in ranges where address >= range.low && address < range.high {
            if innermost < 0 || calls[range.call].depth > depth {
                innermost = range.call
                depth = calls[range.call].depth
            }
        }
        return innermost >= 0 ? innermost : nil
    }

    private static func callSite(_ die: UnsafeMutablePointer<Dwarf_Die>, _ files: [Int32]) -> (Int32, Int32, Int32) {
        var file: Int32 = -1
        // The call file indexes the unit's file table (libdw's table covers DWARF 4 and 5 numbering alike).
        if let value = LibdwDIE.unsigned(die, Int32(DW_AT_call_file)), value < UInt64(files.count) {
            file = files[Int(value)]
        }
        let line = LibdwDIE.unsigned(die, Int32(DW_AT_call_line)).map { Int32(truncatingIfNeeded: $0) } ?? 0
        let column = LibdwDIE.unsigned(die, Int32(DW_AT_call_column)).map { Int32(truncatingIfNeeded: $0) } ?? 0
        return (file, line, column)
    }
}
