import CLibdw

#if canImport(Glibc)
import Glibc
#endif

/// A unit's inlined calls, in flat tables that each function's `InlineTree` takes a slice of: one array per
/// unit, not per function, since a walk reads thousands of functions and most have a few calls.
struct InlineCalls {
    /// An inlined call inside a function: its name, call site (its file as the unit's file table numbers it:
    /// -1 for none), the inlined call it sits in (an index into `calls`; -1: none) and its depth below the
    /// function. (32-bit fields: a unit holds thousands.)
    struct Call {
        var parent: Int32
        var depth: Int32
        /// `InlineTree.unnamed` until a lookup first shows the call (`AddressLookup` then reads it at `die`):
        /// most calls are never shown, and finding a name costs more than the rest of the call.
        var name: Int32
        var site: (file: Int32, line: Int32, column: Int32)
        var die: UInt64
    }

    /// An address range of an inlined call (`calls[call]`). Kept apart from the calls, so that a lookup scans
    /// plain values.
    struct CallRange { var low: UInt64, high: UInt64, call: Int32 }

    var calls: [Call] = []
    var ranges: [CallRange] = []
    var trees: [InlineTree] = []

    /// Like llvm-symbolizer, the innermost inlined call of the tree whose own ranges contain an address wins,
    /// and its chain is its ancestry: enclosing blocks' and calls' ranges need not cover it (optimized code
    /// often breaks that).
    func innermost(_ tree: Int, _ address: UInt64) -> Int? {
        var innermost = -1
        var depth: Int32 = 0
        for range in ranges[trees[tree].ranges] where address >= range.low && address < range.high {
            if innermost < 0 || calls[Int(range.call)].depth > depth {
                innermost = Int(range.call)
                depth = calls[innermost].depth
            }
        }
        return innermost >= 0 ? innermost : nil
    }

    /// Reads the subprogram at `offset` with libdw (names interned into `names`) into a new tree, appended last;
    /// its index.
    mutating func read(_ offset: Dwarf_Off, dwarf: OpaquePointer?, names: inout InternedNames) -> Int {
        let (firstCall, firstRange) = (calls.count, ranges.count)
        var name: Int32 = -1
        defer {
            trees.append(
                InlineTree(
                    name: name, offset: offset, calls: firstCall ..< calls.count, ranges: firstRange ..< ranges.count))
        }
        guard var function = LibdwDIE.at(offset, in: dwarf) else { return trees.count }
        name = names.nameID(LibdwDIE.linkageName(&function))
        // (die, enclosing inlined call, depth), walked depth-first through blocks and inlined calls.
        var pending: [(die: Dwarf_Die, parent: Int, depth: Int)] = []
        var child = Dwarf_Die()
        if dwarf_child(&function, &child) == 0 { pending.append((child, -1, 1)) }
        while let next = pending.popLast() {
            var die = next.die
            var sibling = Dwarf_Die()
            if dwarf_siblingof(&die, &sibling) == 0 { pending.append((sibling, next.parent, next.depth)) }
            let tag = dwarf_tag(&die)
            var enclosing = next.parent
            if tag == DW_TAG_inlined_subroutine {
                for range in LibdwDIE.ranges(&die) {
                    ranges.append(CallRange(low: range.low, high: range.high, call: Int32(calls.count)))
                }
                calls.append(
                    Call(
                        parent: Int32(next.parent), depth: Int32(next.depth),
                        name: names.nameID(LibdwDIE.linkageName(&die)), site: Self.callSite(&die),
                        die: dwarf_dieoffset(&die)))
                enclosing = calls.count - 1
            }
            if tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block {
                var nested = Dwarf_Die()
                if dwarf_child(&die, &nested) == 0 { pending.append((nested, enclosing, next.depth + 1)) }
            }
        }
        return trees.count
    }

    private static func callSite(_ die: UnsafeMutablePointer<Dwarf_Die>) -> (Int32, Int32, Int32) {
        var file: Int32 = -1
        // libdw's file table covers DWARF 4 and 5 numbering alike.
        if let value = LibdwDIE.unsigned(die, Int32(DW_AT_call_file)), value < UInt64(Int32.max) { file = Int32(value) }
        let line = LibdwDIE.unsigned(die, Int32(DW_AT_call_line)).map { Int32(truncatingIfNeeded: $0) } ?? 0
        let column = LibdwDIE.unsigned(die, Int32(DW_AT_call_column)).map { Int32(truncatingIfNeeded: $0) } ?? 0
        return (file, line, column)
    }
}
