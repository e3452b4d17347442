import Foundation

/// Functions ranked by time, like uftrace's `report`.
public struct Profile: Sendable {
    public struct Entry: Sendable {
        public var name: String
        public var calls = 0
        /// Inclusive time, counting a recursive function once per outermost call.
        public var total: Double = 0
        /// Time in the function itself, excluding what it called.
        public var selfTime: Double = 0
        public var minimum = Double.infinity
        public var maximum: Double = 0
        public var sumOfCalls: Double = 0
        public var average: Double { calls == 0 ? 0 : sumOfCalls / Double(calls) }
    }

    public enum Order: String, Sendable, CaseIterable {
        case total, `self`, calls, name
    }

    public var entries: [Entry]

    public init(_ tree: CallTree, order: Order = .total) {
        var byName: [String: Entry] = [:]
        var open: [Int: Int] = [:]  // calls of each site on the current path, for recursion
        // Depth-first without recursion: a trace can nest deeper than this process's stack.
        var pending: [(index: Int, leaving: Bool)] = tree.roots.reversed().map { ($0, false) }
        while let (index, leaving) = pending.popLast() {
            let call = tree.calls[index]
            if leaving {
                open[call.site, default: 1] -= 1
                continue
            }
            let name = tree.sites[call.site].name
            let duration = (call.end ?? tree.endTime) - call.start
            var entry = byName[name] ?? Entry(name: name)
            entry.calls += 1
            entry.sumOfCalls += duration
            entry.minimum = min(entry.minimum, duration)
            entry.maximum = max(entry.maximum, duration)
            if open[call.site, default: 0] == 0 { entry.total += duration }
            let childTime = call.children.reduce(0.0) { $0 + (tree.calls[$1].end ?? tree.endTime) - tree.calls[$1].start }
            entry.selfTime += max(0, duration - childTime)
            byName[name] = entry
            open[call.site, default: 0] += 1
            pending.append((index, true))
            pending.append(contentsOf: call.children.reversed().map { ($0, false) })
        }
        entries = Array(byName.values)
        switch order {
        case .total: entries.sort { ($0.total, $1.name) > ($1.total, $0.name) }
        case .self: entries.sort { ($0.selfTime, $1.name) > ($1.selfTime, $0.name) }
        case .calls: entries.sort { ($0.calls, $1.name) > ($1.calls, $0.name) }
        case .name: entries.sort { $0.name < $1.name }
        }
    }

    public func render() -> String {
        var out = "  Total time   Self time       Calls     Average     Minimum     Maximum  Function\n"
        out += "  ==========  ==========  ==========  ==========  ==========  ==========  ====================\n"
        for entry in entries {
            let columns = [entry.total, entry.selfTime].map { "  " + DurationFormat.format($0) }.joined()
                + "  " + String(format: "%10d", entry.calls)
                + [entry.average, entry.minimum, entry.maximum].map { "  " + DurationFormat.format($0) }.joined()
            out += columns + "  " + entry.name + "\n"
        }
        return out
    }
}
