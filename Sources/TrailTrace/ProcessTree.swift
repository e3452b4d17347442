import TrailFormat

/// Which processes of a set started under a call of another (they inherited its TRACEPARENT: Docs/trace-format.md,
/// "Span and trace ids"), so that `replay` prints each under the call that started it, once. Shared by the replays
/// of a process and of the processes nested in it.
public final class ProcessTree {
    /// By the exported span id of the call they started under, in start order.
    private var children: [UInt64: [TraceFile]] = [:]
    private var claimed: Set<String> = []

    public init(_ files: [TraceFile]) {
        for file in files {
            guard let span = file.info(.traceparent).flatMap(TraceParent.init)?.spanID else { continue }
            children[span, default: []].append(file)
        }
    }

    var isEmpty: Bool { children.isEmpty }

    /// The salt that makes `file`'s calls' exported span ids.
    static func salt(of file: TraceFile) -> UInt64 {
        SpanIDMath.salt(
            wallClockStart: file.startWallNanoseconds, pid: file.pid, host: file.info(.host) ?? "")
    }

    /// The processes started under the call exported as `span` that nothing printed yet; they are printed now.
    func claimChildren(of span: UInt64) -> [TraceFile] {
        guard let files = children[span] else { return [] }
        let unclaimed = files.filter { !claimed.contains($0.path) }
        claimed.formUnion(unclaimed.map(\.path))
        return unclaimed
    }

    /// Whether `file` was printed under its parent's call.
    public func isNested(_ file: TraceFile) -> Bool { claimed.contains(file.path) }
}
