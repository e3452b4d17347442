/// A unit's functions with code and the inlined calls inside each, read in one walk over the unit's DIEs with a
/// `DIECursor` (`DIEReader` reads the unit's DIE and the ranges). Walking a function's DIEs again for its inlined
/// calls, on its first lookup, cost as much as the unit's walk once a batch of addresses touches most functions;
/// here each DIE is stepped over once.
struct UnitWalk {
    var functions = UnitFunctions()
    /// Each function's inlined calls: `functions`' ranges index `calls.trees`.
    var calls = InlineCalls()

    /// An open list of children: whether functions are looked for in it (its ancestors are all of the kinds
    /// `UnitFunctions.nests` names), the open tree its inlined calls go to (an index into the walk's open
    /// trees; -1: none), the inlined call they sit in (in that open tree; -1: none), its depth below the tree's
    /// function, and whether it is that function's own list.
    private struct Level { var functions: Bool, tree = -1, call = -1, depth = 0, opensTree = false }

    /// The calls of a function whose DIEs are still being walked, numbered from 0. A function's DIEs may hold
    /// another's (Swift nests closures in their function): each is kept apart until its list of children ends,
    /// then moved to `calls` in one piece.
    private struct OpenTree {
        var tree = 0
        var calls: [InlineCalls.Call] = []
        var ranges: [InlineCalls.CallRange] = []
    }

    /// nil when the reader cannot read the unit (libdw reads it then).
    init?(_ unit: DIEReader.Unit, reader: inout DIEReader) {
        guard let unitDie = reader.readDIE(at: unit.dieOffset, unit), unitDie.tag != 0 else { return nil }
        let (start, info) = (reader.position, reader.infoBytes)
        guard
            let walked = reader.abbreviations(unit).withUnsafeViews({ table in
                var cursor = DIECursor(info: info, at: start, unit: unit, table: table)
                return Self.walk(&cursor, unit, children: unitDie.hasChildren, reader: &reader)
            })
        else { return nil }
        functions = UnitFunctions(sorting: walked.functions)
        calls = walked.calls
    }

    /// The walk: the functions' ranges, and their calls.
    private static func walk(
        _ cursor: inout DIECursor, _ unit: DIEReader.Unit, children: Bool, reader: inout DIEReader
    ) -> (functions: [UnitFunctions.Range], calls: InlineCalls)? {
        var calls = InlineCalls()
        var found: [UnitFunctions.Range] = []
        var levels = children ? [Level(functions: true)] : []
        // Open trees, innermost last; `depth` of them in use, the rest kept for their storage.
        var open: [OpenTree] = []
        var depth = 0
        var site = DIEReader.Site()
        var ranges: [(low: UInt64, high: UInt64)] = []
        while let level = levels.last {
            let offset = cursor.position
            guard offset < unit.end else { break }  // a unit may end without its last null entries
            // Subprograms where functions are looked for, inlined calls (DW_TAG_inlined_subroutine) in a tree.
            guard
                let step = cursor.next(
                    decoding: level.functions ? 0x2e : 0, level.tree >= 0 ? 0x1d : 0, into: &site)
            else { return nil }
            let (tag, hasChildren, decoded) = (step.tag, step.hasChildren, step.decoded)
            if tag == 0 {
                if level.opensTree {
                    depth -= 1
                    Self.close(open[depth], into: &calls)
                }
                levels.removeLast()
                continue
            }
            var inside = Level(functions: level.functions && UnitFunctions.nests(tag))
            if decoded {
                ranges.removeAll(keepingCapacity: true)
                guard reader.ranges(site.extent, unit, into: &ranges) else { return nil }
                if tag == 0x2e {
                    // A function: the calls inside go to a tree of its own, not to an enclosing function's.
                    if !ranges.isEmpty {
                        let tree = calls.trees.count
                        calls.trees.append(InlineTree(name: InlineTree.unnamed, offset: UInt64(offset)))
                        for range in ranges {
                            found.append(
                                UnitFunctions.Range(
                                    low: range.low, high: range.high, die: UInt64(offset), tree: Int32(tree)))
                        }
                        if hasChildren {
                            if depth == open.count { open.append(OpenTree()) }
                            open[depth].tree = tree
                            open[depth].calls.removeAll(keepingCapacity: true)
                            open[depth].ranges.removeAll(keepingCapacity: true)
                            depth += 1
                            inside.tree = depth - 1
                            inside.depth = 1
                            inside.opensTree = true
                        }
                    }
                } else {
                    let tree = level.tree
                    var file: Int32 = -1
                    if let value = reader.constant(site.file), value < UInt64(Int32.max) { file = Int32(value) }
                    let line = reader.constant(site.line).map { Int32(truncatingIfNeeded: $0) } ?? 0
                    let column = reader.constant(site.column).map { Int32(truncatingIfNeeded: $0) } ?? 0
                    let call = open[tree].calls.count
                    for range in ranges {
                        open[tree].ranges.append(
                            InlineCalls.CallRange(low: range.low, high: range.high, call: Int32(call)))
                    }
                    open[tree].calls.append(
                        InlineCalls.Call(
                            parent: Int32(level.call), depth: Int32(level.depth), name: InlineTree.unnamed,
                            site: (file, line, column), die: UInt64(offset)))
                    inside.tree = tree
                    inside.call = call
                    inside.depth = level.depth + 1
                }
            } else if tag == 0x0b, level.tree >= 0 {  // a lexical block: its calls are its function's
                inside.tree = level.tree
                inside.call = level.call
                inside.depth = level.depth + 1
            }
            if hasChildren { levels.append(inside) }
        }
        while depth > 0 {
            depth -= 1
            Self.close(open[depth], into: &calls)
        }
        return (found, calls)
    }

    /// Moves a walked function's calls to the unit's, renumbered, and points its tree at them.
    private static func close(_ open: OpenTree, into calls: inout InlineCalls) {
        let (firstCall, firstRange) = (calls.calls.count, calls.ranges.count)
        calls.calls.append(contentsOf: open.calls)
        calls.ranges.append(contentsOf: open.ranges)
        let base = Int32(firstCall)
        for index in firstCall ..< calls.calls.count where calls.calls[index].parent >= 0 {
            calls.calls[index].parent += base
        }
        for index in firstRange ..< calls.ranges.count { calls.ranges[index].call += base }
        calls.trees[open.tree].calls = firstCall ..< calls.calls.count
        calls.trees[open.tree].ranges = firstRange ..< calls.ranges.count
    }
}
