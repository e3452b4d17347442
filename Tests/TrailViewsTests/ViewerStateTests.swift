import Testing
import TrailTrace
import TrailViews

/// `trail tui`'s model driven as the keys drive it, on the hand-made trace of `ViewsTests` (main → a → b →
/// c, c; a → c; main → b → c, c), reading the screen it would draw.
@Suite struct ViewerStateTests {
    func state() throws -> ViewerState {
        let path = try ViewsTests.run(c: 10).write("tui.trace")
        return ViewerState(tree: CallTree.read([try TraceFile(path: path)]))
    }

    func body(_ state: inout ViewerState, width: Int = 60, height: Int = 12) -> [String] {
        let lines = state.screen(width: width, height: height)
        return lines.dropFirst().dropLast().map(\.text).filter { !$0.isEmpty }.map {
            $0.trimmingCharacters(in: .whitespaces)
        }
    }

    @Test func treeFoldsPerCallAndPerLevel() throws {
        var state = try state()
        #expect(
            body(&state) == [
                "62.000 us  [  4242]  - M.main()",
                "36.000 us  [  4242]    - M.a()",
                "23.000 us  [  4242]      - M.b()",
                "10.000 us  [  4242]          M.c()",
                "10.000 us  [  4242]          M.c()",
                "10.000 us  [  4242]        M.c()",
                "23.000 us  [  4242]    - M.b()",
                "10.000 us  [  4242]        M.c()",
                "10.000 us  [  4242]        M.c()",
            ])
        state.move(1)
        state.toggle()
        #expect(body(&state).count == 5)
        #expect(body(&state)[1] == "36.000 us  [  4242]    + M.a()")
        #expect(state.screen(width: 60, height: 12)[2].style == .selected)
        state.toggle()
        #expect(body(&state).count == 9)
        state.showLevels(2)
        #expect(body(&state).map { $0.split(separator: " ").last! } == ["M.main()", "M.a()", "M.b()"])
        state.showLevels(0)
        state.move(-5)
        state.collapseChildren()
        #expect(body(&state).count == 3)
        // The status line says where the selection is; a small screen scrolls to keep it shown.
        #expect(state.screen(width: 60, height: 12).last!.text.hasPrefix(" call tree 1/3"))
        state.showLevels(0)
        state.move(8)
        let small = state.screen(width: 60, height: 5)
        #expect(small.count == 5 && small[3].style == .selected && small[3].text.contains("M.c()"))
    }

    @Test func searchAndSlowestRevealWhatFoldsHide() throws {
        var state = try state()
        state.showLevels(2)
        #expect(body(&state).count == 3)
        state.search("M.c")
        #expect(state.selectedCall.map { state.tree.calls[Int($0)].depth } == 3, "the first c, under a and b")
        #expect(body(&state).count == 7, "a and its b unfolded to show it; main's b still folded")
        state.findNext(forward: true)
        state.findNext(forward: true)
        #expect(state.selectedCall.map { state.tree.calls[Int($0)].depth } == 2, "a's own c")
        state.findNext(forward: false)
        #expect(state.selectedCall.map { state.tree.calls[Int($0)].depth } == 3)
        state.search("nothing")
        #expect(state.screen(width: 80, height: 12).last!.text.contains("no call matches 'nothing'"))
        state.nextSlowest()
        #expect(state.selectedCall.map(state.tree.name) == "M.main()")
        state.nextSlowest()
        #expect(state.selectedCall.map(state.tree.name) == "M.a()")
    }

    @Test func reportAndGraphJumpBetweenModes() throws {
        var state = try state()
        state.move(3)
        state.showReport()
        #expect(state.mode == .report)
        var lines = body(&state, width: 140)
        #expect(lines.first?.hasSuffix("M.main()") == true && lines.count == 4, "\(lines)")
        #expect(state.screen(width: 120, height: 12)[2].style == .selected, "c, the call selected in the tree")
        state.nextSortKey()
        lines = body(&state, width: 140)
        #expect(lines.first?.hasSuffix("M.c()") == true, "sorted by self time")
        state.showGraph()
        #expect(state.mode == .graph)
        lines = body(&state, width: 140, height: 20)
        #expect(lines.contains("hit 2, 20.000 us:  M.main() > M.a() > M.b()"))
        #expect(lines.contains("50.000 us   50.000 us : (5) M.c()"))
        state.move(-10)
        state.move(1)
        state.toggle()
        #expect(state.mode == .tree && state.selectedCall.map(state.tree.name) == "M.b()")
    }

    @Test func filtersHideCallsAndKeepWhatTheyCalled() throws {
        var state = try state()
        state.minDuration = 20_000
        state.rebuild()
        #expect(body(&state).map { $0.split(separator: " ").last! } == ["M.main()", "M.a()", "M.b()", "M.b()"])
        state.minDuration = 0
        state.filter = NamePattern("M.b()")
        state.rebuild()
        #expect(body(&state).count == 6, "the two b's and their four c's")
        state.filter = nil
        // main's b starts at 38 us; a ends at 37 us.
        state.timeRange = ViewerState.timeRange("37.5us~")
        state.rebuild()
        #expect(body(&state).map { $0.split(separator: " ").last! } == ["M.main()", "M.b()", "M.c()", "M.c()"])
        #expect(ViewerState.timeRange("~5ms") == 0 ... 5e6 && ViewerState.timeRange("3ms~1ms") == nil)
        #expect(ViewerState.timeRange("5") == nil)
        state.timeRange = nil
        state.threads = [1]
        state.rebuild()
        #expect(body(&state).isEmpty)
    }

    /// Rows as the reading hands them on, a slice at a time: a call whose end is not read yet says so, the status
    /// line and the report say how much is read, and a fold by level holds for rows that come later.
    @Test func rowsComeWhileTheTraceIsRead() {
        var state = ViewerState(tree: CallTree())
        var first = CallRows()
        first.sites = [Site("M.main() @ M/main.swift:1"), Site("M.a() @ M/main.swift:2")]
        first.changes = [
            .row(CallRows.Row(site: 0, tid: 7, parent: -1, start: 0, marks: [])),
            .row(CallRows.Row(site: 1, tid: 7, parent: 0, start: 10, marks: .async)),
            .end(row: 1, duration: 2_000, selfTime: 2_000, unfinished: false),
        ]
        first.bytesRead = 25
        first.totalBytes = 100
        state.absorb(first)
        state.showLevels(2)
        state.refreshRows()
        #expect(
            body(&state) == ["(reading)  [     7]  - M.main()", "2.000 us  [     7]      M.a() [async]"],
            "\(body(&state))")
        #expect(state.screen(width: 80, height: 12).last!.text.contains("reading 25%"))
        state.showReport()
        #expect(state.screen(width: 140, height: 12).first!.text.contains("partial: 25% read"))
        state.showTree()
        var last = CallRows()
        last.changes = [
            .row(CallRows.Row(site: 1, tid: 7, parent: 1, start: 20, marks: [])),
            .end(row: 0, duration: 5_000, selfTime: 1_000, unfinished: false),
        ]
        last.bytesRead = 100
        last.totalBytes = 100
        last.finished = true
        state.absorb(last)
        state.refreshRows()
        #expect(body(&state) == ["5.000 us  [     7]  - M.main()", "2.000 us  [     7]    + M.a() [async]"])
        #expect(!state.screen(width: 80, height: 12).last!.text.contains("reading"))
    }

    /// Past the limit calls are not kept as rows, but the report counts every one.
    @Test func pastTheLimitOnlyTheProfile() throws {
        let path = try ViewsTests.run(c: 10).write("limit.trace")
        let tree = CallTree.read([try TraceFile(path: path)], limit: 3)
        #expect(tree.calls.count == 3 && tree.skipped == 6 && tree.finished)
        #expect(tree.profile.entries(.calls).map(\.calls) == [5, 2, 1, 1])
    }
}
