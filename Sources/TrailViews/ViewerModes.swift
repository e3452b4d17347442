import TrailTrace

/// The report mode: `Profile`'s rows, sorted by the column `s` picks.
struct ReportMode {
    var entries: [Profile.Entry] = []
    var key = Profile.Order.total
    var selected = 0
    var top = 0

    var selectedName: String? { entries.indices.contains(selected) ? entries[selected].name : nil }

    mutating func load(_ profile: ProfileSnapshot, selecting name: String?) {
        entries = profile.entries(key)
        selected = name.flatMap { name in entries.firstIndex { $0.name == name } } ?? 0
    }

    mutating func nextKey(_ profile: ProfileSnapshot) {
        let keys = Profile.Order.allCases
        key = keys[(keys.firstIndex(of: key)! + 1) % keys.count]
        load(profile, selecting: selectedName)
    }

    mutating func move(_ delta: Int) { selected = max(0, min(entries.count - 1, selected + delta)) }

    var header: String {
        "  Total time   Self time       Calls     Average     Minimum     Maximum  Function  (sorted by \(key.rawValue))"
    }

    func line(_ row: Int) -> String {
        let entry = entries[row]
        let times = [entry.total, entry.selfTime].map { "  " + DurationFormat.format($0) }.joined()
        let calls = String(entry.calls)
        return times + "  " + String(repeating: " ", count: max(0, 10 - calls.count)) + calls
            + [entry.average, entry.minimum, entry.maximum].map { "  " + DurationFormat.format($0) }.joined()
            + "  " + entry.name
    }
}

/// The graph mode: a function's callers (each distinct stack that reached it) and callees (merged by path),
/// from the calls the tree holds.
struct GraphMode {
    struct Line {
        var text: String
        var name: String?
    }

    var function = ""
    var lines: [Line] = []
    var selected = 0
    var top = 0

    var selectedName: String? { lines.indices.contains(selected) ? lines[selected].name : nil }

    mutating func move(_ delta: Int) { selected = max(0, min(lines.count - 1, selected + delta)) }

    mutating func load(_ name: String, tree: CallTree) {
        function = name
        var callers: [[String]: (hits: Int, time: Double)] = [:]
        var callerOrder: [[String]] = []
        var nodes: [(name: String, calls: Int, total: Double, selfTime: Double, children: [Int])] = []
        var childIndex: [Int: [String: Int]] = [:]
        nodes.append((name, 0, 0, 0, []))
        func add(_ index: Int32, under node: Int) {
            let call = tree.calls[Int(index)]
            nodes[node].calls += 1
            nodes[node].total += call.duration
            nodes[node].selfTime += call.selfTime
            var child = call.firstChild
            while child >= 0 {
                let childName = tree.name(child)
                let target: Int
                if let found = childIndex[node]?[childName] {
                    target = found
                } else {
                    nodes.append((childName, 0, 0, 0, []))
                    target = nodes.count - 1
                    nodes[node].children.append(target)
                    childIndex[node, default: [:]][childName] = target
                }
                add(child, under: target)
                child = tree.calls[Int(child)].next
            }
        }
        for index in tree.calls.indices where tree.name(Int32(index)) == name {
            // Only outermost calls: a recursive one is counted in the call that encloses it.
            var parent = tree.calls[index].parent
            while parent >= 0, tree.name(parent) != name { parent = tree.calls[Int(parent)].parent }
            guard parent < 0 else { continue }
            var stack: [String] = []
            parent = tree.calls[index].parent
            while parent >= 0 {
                stack.append(tree.name(parent))
                parent = tree.calls[Int(parent)].parent
            }
            stack = stack.reversed()
            if callers[stack] == nil { callerOrder.append(stack) }
            callers[stack, default: (0, 0)].hits += 1
            callers[stack, default: (0, 0)].time += tree.calls[index].duration
            add(Int32(index), under: 0)
        }
        lines = [Line(text: "Callers of \(name):", name: nil)]
        for stack in callerOrder {
            let entry = callers[stack]!
            let path = stack.isEmpty ? "(a root)" : stack.joined(separator: " > ")
            lines.append(
                Line(text: "  hit \(entry.hits), \(InfoText.trimmed(entry.time)):  \(path)", name: stack.last))
        }
        lines.append(Line(text: "", name: nil))
        lines.append(Line(text: " TOTAL TIME   SELF TIME   FUNCTION (callees)", name: nil))
        func emit(_ node: Int, depth: Int) {
            let entry = nodes[node]
            let text =
                DurationFormat.format(entry.total) + "  " + DurationFormat.format(entry.selfTime) + " : "
                + String(repeating: "  ", count: depth) + "(\(entry.calls)) " + entry.name
            lines.append(Line(text: text, name: entry.name))
            for child in entry.children { emit(child, depth: depth + 1) }
        }
        emit(0, depth: 0)
        selected = lines.firstIndex { $0.name == name && $0.text.contains(" : ") } ?? 0
        top = 0
    }
}
