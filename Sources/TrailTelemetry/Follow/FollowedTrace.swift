import TrailTrace

/// One trace being followed (`SpanFollow`), and what of it waits to be sent.
final class FollowedTrace {
    let follower: TraceFollower
    let identity: String
    var selection = SpanSelection(beginProcess: { _ in }, span: { _, _ in }, endProcess: { _ in })
    var spans: [Span] = []
    /// The exit time of the last span gathered, and how many gathered spans end at it.
    var lastExit: UInt64 = 0
    var atLastExit = 0
    /// Spans to skip again after a restart: those ending before `skipBefore`, and the first `skipAt` ending at it.
    var skipBefore: UInt64 = 0
    var skipAt = 0
    var quietSince = FollowTiming.now()
    var finished = false

    init(follower: TraceFollower, identity: String) {
        self.follower = follower
        self.identity = identity
    }

    /// A selection that gathers the trace's spans as `export` makes them, skipping those a previous run sent.
    func gathering(_ export: TraceExport) -> SpanSelection {
        var ids: TraceExport.ProcessIDs?
        var selection = SpanSelection(
            beginProcess: { process in ids = TraceExport.ProcessIDs(process.file) },
            span: { [unowned self] selected, process in
                let end = selected.call.end
                if end < skipBefore { return }
                if end == skipBefore, skipAt > 0 {
                    skipAt -= 1
                    return
                }
                guard let ids else { return }
                spans.append(export.span(selected, process, ids: ids, exception: nil))
                if end == lastExit {
                    atLastExit += 1
                } else {
                    (lastExit, atLastExit) = (end, 1)
                }
            },
            endProcess: { _ in })
        selection.minDuration = export.minDuration
        selection.filter = export.filter
        selection.fold = export.fold
        return selection
    }
}
