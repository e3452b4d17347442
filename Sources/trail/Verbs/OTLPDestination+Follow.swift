import TrailCommandLine
import TrailTelemetry

/// What both `--follow` verbs (spans and logs) do around their library loop (`SpanFollow`, `LogFollow`).
extension OTLPDestination {
    /// Where a follower sends, its messages on standard error.
    var followOutput: FollowOutput {
        FollowOutput(sink: sink, batch: batch, name: name, say: { printError($0) })
    }

    /// A follower made by `start`: a cursor it cannot read is a problem in that input.
    func follower<Follow>(_ start: () throws -> Follow) throws -> Follow {
        do { return try start() } catch let error as FollowError { throw VerbFailure.input(error.description) }
    }

    /// Before a follower's first round: a receiver that is down is waited for, SIGINT and SIGTERM stop it after
    /// its next delivery, and it says what it follows.
    func beginFollowing(_ what: String, cursor: String) {
        keepTrying()
        StopSignal.install()
        printError("trail export: following \(what) to \(name); cursor \(cursor)")
    }
}
