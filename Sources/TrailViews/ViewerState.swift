import TrailTrace

/// What `trail tui` shows and where, without a terminal: the tree's visible rows under its folds, the report's
/// order, the graph's function, the selection and the search. Keys map to the methods here; `lines` gives the
/// screen as text, so tests drive it as the terminal does.
public struct ViewerState {
    public enum Mode: Sendable { case tree, report, graph }

    public private(set) var tree: CallTree
    public private(set) var mode = Mode.tree
    /// The tree's visible calls, in order, under the folds and filters.
    public private(set) var rows: [Int32] = []
    public private(set) var folded = Set<Int32>()
    public private(set) var selected = 0
    public private(set) var top = 0
    public private(set) var message = ""
    public private(set) var query = ""
    /// Only calls at least this long (ns), only these threads, only subtrees whose root matches.
    public var minDuration: Double = 0
    public var threads: Set<UInt32> = []
    public var filter: NamePattern?
    /// Only calls that overlap this span of time, in nanoseconds since their process started recording.
    public var timeRange: ClosedRange<Double>?
    var report = ReportMode()
    var graph = GraphMode()
    private var slowest: [Int32]?
    private var slowestNext = 0
    /// The depth `showLevels` folds at, for rows that come later.
    private var foldDepth: Int32?
    /// Rows came since the last `rebuild`.
    public private(set) var stale = false

    public init(tree: CallTree) {
        self.tree = tree
        rebuild()
    }

    public var selectedCall: Int32? { rows.indices.contains(selected) ? rows[selected] : nil }

    /// What a slice of reading added. The rows are rebuilt by `refreshRows`, which the terminal calls now and
    /// then: a rebuild is a pass over every call.
    public mutating func absorb(_ rows: CallRows) {
        let firstNew = tree.apply(rows)
        if let foldDepth {
            for index in firstNew ..< tree.calls.count where tree.calls[index].depth == foldDepth {
                folded.insert(Int32(index))
            }
        }
        if !rows.changes.isEmpty {
            stale = true
            slowest = nil
        }
        if mode == .report, rows.profile != nil { report.load(tree.profile, selecting: report.selectedName) }
    }

    /// The rows again, when calls came since they were last made.
    public mutating func refreshRows() {
        if stale { rebuild() }
    }

    /// The rows again after a fold or a filter changed, keeping the selected call where it still shows.
    public mutating func rebuild() {
        let keep = selectedCall
        stale = false
        rows.removeAll(keepingCapacity: true)
        var stack: [Int32] = []
        for root in tree.roots.reversed() { stack.append(root) }
        while let index = stack.popLast() {
            let call = tree.calls[Int(index)]
            // A call whose end is not read yet may still be long enough, and may reach into the range.
            if call.ended, call.duration < minDuration { continue }
            // A call outside the range has its calls outside it too.
            if let timeRange,
                call.start > timeRange.upperBound || (call.ended && call.start + call.duration < timeRange.lowerBound)
            {
                continue
            }
            if !threads.isEmpty, !threads.contains(tree.tid(index)) { continue }
            var children: [Int32] = []
            var child = call.firstChild
            while child >= 0 {
                children.append(child)
                child = tree.calls[Int(child)].next
            }
            // Outside the filter's subtrees a call is not shown, but what it called may be.
            if let filter, !filter.matches(tree.name(index)), !hasMatchingAncestor(index, filter) {
                stack += children.reversed()
                continue
            }
            rows.append(index)
            if !folded.contains(index) { stack += children.reversed() }
        }
        if let keep, let row = rows.firstIndex(of: keep) { selected = row }
        selected = max(0, min(selected, rows.count - 1))
    }

    private func hasMatchingAncestor(_ index: Int32, _ filter: NamePattern) -> Bool {
        var parent = tree.calls[Int(index)].parent
        while parent >= 0 {
            if filter.matches(tree.name(parent)) { return true }
            parent = tree.calls[Int(parent)].parent
        }
        return false
    }

    // MARK: keys

    public mutating func move(_ delta: Int) {
        switch mode {
        case .tree: selected = max(0, min(rows.count - 1, selected + delta))
        case .report: report.move(delta)
        case .graph: graph.move(delta)
        }
        message = ""
    }

    /// Enter: folds or unfolds the selected call; in report and graph modes, shows the function's calls.
    public mutating func toggle() {
        switch mode {
        case .tree:
            guard let call = selectedCall, tree.calls[Int(call)].firstChild >= 0 else { return }
            if folded.contains(call) { folded.remove(call) } else { folded.insert(call) }
            rebuild()
        case .report, .graph:
            if let name = mode == .report ? report.selectedName : graph.selectedName { showTree(at: name) }
        }
    }

    /// Folds every call `levels` deep, so that the tree shows that many levels; 0 unfolds everything.
    public mutating func showLevels(_ levels: Int) {
        folded.removeAll()
        foldDepth = levels > 0 ? Int32(levels - 1) : nil
        if levels > 0 {
            // Calls without children too: while the trace is read, theirs may still come.
            for (index, call) in tree.calls.enumerated() where call.depth == levels - 1 {
                folded.insert(Int32(index))
            }
        }
        rebuild()
        message = levels == 0 ? "all levels" : "\(levels) level\(levels == 1 ? "" : "s")"
    }

    /// Folds the selected call's children (uftrace tui's `c`).
    public mutating func collapseChildren() {
        guard mode == .tree, let call = selectedCall else { return }
        var child = tree.calls[Int(call)].firstChild
        while child >= 0 {
            if tree.calls[Int(child)].firstChild >= 0 { folded.insert(child) }
            child = tree.calls[Int(child)].next
        }
        folded.remove(call)
        rebuild()
    }

    /// Selects a call, unfolding what hides it.
    public mutating func reveal(_ index: Int32) {
        var parent = tree.calls[Int(index)].parent
        while parent >= 0 {
            folded.remove(parent)
            parent = tree.calls[Int(parent)].parent
        }
        mode = .tree
        rebuild()
        if let row = rows.firstIndex(of: index) { selected = row }
    }

    /// `/`: the next call whose name contains `text`, from the selection on.
    public mutating func search(_ text: String) {
        query = text
        findNext(forward: true, including: true)
    }

    /// `n` and `N`.
    public mutating func findNext(forward: Bool, including: Bool = false) {
        guard !query.isEmpty, !tree.calls.isEmpty else { return }
        let count = tree.calls.count
        let from = Int(selectedCall ?? 0)
        for step in (including ? 0 : 1) ... count {
            let index = ((forward ? from + step : from - step) % count + count) % count
            if tree.shownName(Int32(index)).contains(query) {
                reveal(Int32(index))
                message = "/\(query)"
                return
            }
        }
        message = "no call matches '\(query)'"
    }

    /// `S`: the slowest call, then the next slowest at each press.
    public mutating func nextSlowest() {
        if slowest == nil {
            slowest = (0 ..< Int32(tree.calls.count)).sorted {
                tree.calls[Int($0)].duration > tree.calls[Int($1)].duration
            }
            slowestNext = 0
        }
        guard let slowest, !slowest.isEmpty else { return }
        let index = slowest[slowestNext % slowest.count]
        slowestNext += 1
        reveal(index)
        message = "slowest #\(slowestNext)"
    }

    public mutating func showReport() {
        mode = .report
        report.load(tree.profile, selecting: selectedCall.map(tree.name))
    }

    /// `s` in report mode: the next column to sort by.
    public mutating func nextSortKey() {
        guard mode == .report else { return }
        report.nextKey(tree.profile)
        message = "sorted by \(report.key.rawValue)"
    }

    public mutating func showGraph() {
        let name: String?
        switch mode {
        case .tree: name = selectedCall.map(tree.name)
        case .report: name = report.selectedName
        case .graph: name = graph.selectedName
        }
        guard let name else { return }
        graph.load(name, tree: tree)
        mode = .graph
    }

    public mutating func showTree() { mode = .tree }

    /// The first call of `name` in the tree.
    mutating func showTree(at name: String) {
        guard let index = tree.calls.indices.first(where: { tree.name(Int32($0)) == name }) else { return }
        reveal(Int32(index))
    }

    /// The selected call's source, `path` and line, for the editor.
    public var selectedLocation: (path: String, line: Int)? {
        guard mode == .tree, let call = selectedCall else { return nil }
        let location = tree.location(call)
        guard let colon = location.lastIndex(of: ":"), let line = Int(location[location.index(after: colon)...])
        else { return nil }
        return (String(location[..<colon]), line)
    }

    public mutating func say(_ text: String) { message = text }

    /// uftrace's `--time-range START~END`: times since recording started, with their units; either side may be
    /// left out (`~5ms`, `2ms~`).
    public static func timeRange(_ text: String) -> ClosedRange<Double>? {
        let sides = text.split(separator: "~", maxSplits: 1, omittingEmptySubsequences: false)
        guard sides.count == 2 else { return nil }
        let start = sides[0].isEmpty ? 0 : DurationFormat.parse(String(sides[0]))
        let end = sides[1].isEmpty ? Double.infinity : DurationFormat.parse(String(sides[1]))
        guard let start, let end, start <= end else { return nil }
        return start ... end
    }

    /// Keeps the selection on screen for a body `height` rows tall.
    public mutating func scroll(height: Int) {
        let row = mode == .tree ? selected : mode == .report ? report.selected : graph.selected
        var first = mode == .tree ? top : mode == .report ? report.top : graph.top
        if row < first { first = row }
        if row >= first + height { first = row - height + 1 }
        switch mode {
        case .tree: top = max(0, first)
        case .report: report.top = max(0, first)
        case .graph: graph.top = max(0, first)
        }
    }
}
