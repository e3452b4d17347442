import TrailFormat

/// What a walk that starts inside a file (`SyncCallWalk.startsUnknown`, the second half of `ProfileInHalves`)
/// learns of one thread's calls open where it started, for `SyncCallWalk.join` to settle with the first half's
/// walk: how many they are (the first record's depth says; the join checks it), when each ended and the time of
/// the calls it made after the start, and the inclusive times that count only if none of them has the
/// function's name (a call that is outermost above them).
final class UnknownStart {
    struct Ended {
        /// Its depth on the thread's stack, and when it ended (its exit, or a shallower record's time).
        var depth: Int
        var time: UInt64
        /// The time of the calls it made after the start.
        var childTicks: UInt64
    }

    /// Inclusive time of site `site`'s calls made above `unknownBelow` of the unknown calls, none of the same
    /// name among the known ones: it counts in the site's total unless one of those has the name.
    struct ConditionalTotal {
        var site: Int32
        var unknownBelow: Int
        var ticks: UInt64
    }

    /// How many calls were open at the start; nil until the thread's first ENTER or EXIT record.
    private(set) var count: Int?
    private(set) var ended: [Ended] = []
    private(set) var conditionalTotals: [ConditionalTotal] = []
    /// Per site, the conditional time while `unknownBelow` calls are open, and the sites that have some.
    private var pending: [UInt64] = []
    private var touched: [Int32] = []
    private var unknownBelow = 0

    func start(count: Int) {
        self.count = count
        unknownBelow = count
    }

    func addTotal(_ ticks: UInt64, site: Int32) {
        let index = Int(site)
        if index >= pending.count { pending.append(contentsOf: repeatElement(0, count: index + 64 - pending.count)) }
        if pending[index] == 0 { touched.append(site) }
        pending[index] &+= ticks
    }

    /// The unknown call at `depth` ended: the calls made above it from now on are above one fewer.
    func ended(_ frame: SyncCallWalk.Frame, at time: UInt64, depth: Int) {
        settle()
        ended.append(Ended(depth: depth, time: time, childTicks: frame.childTicks))
        unknownBelow = depth
    }

    /// Keeps the conditional times gathered so far with the count of unknown calls they were made above.
    func settle() {
        for site in touched where pending[Int(site)] > 0 {
            conditionalTotals.append(
                ConditionalTotal(site: site, unknownBelow: unknownBelow, ticks: pending[Int(site)]))
            pending[Int(site)] = 0
        }
        touched.removeAll(keepingCapacity: true)
    }
}

extension SyncCallWalk.Thread {
    /// Guesses the calls open at the start from the first ENTER or EXIT record of `count` at `base`: as many as
    /// an ENTER's depth, one more than an EXIT's; false when a saturated depth cannot tell.
    func guessUnknownCalls(_ base: UnsafeRawPointer, count: Int) -> Bool {
        for index in 0 ..< count {
            let record = TraceRecord(base, at: index &* TraceRecord.size)
            switch record.kind {
            case .enter, .exit:
                let depth = record.depth
                guard depth < Int(TraceRecord.depthMax) else { return false }
                let calls = record.kind == .enter ? depth : depth + 1
                for _ in 0 ..< calls {
                    push(SyncCallWalk.Frame(site: -1, name: -1, start: 0, childTicks: 0, position: 0, outermost: false))
                }
                unknownLeft = calls
                unknownStart!.start(count: calls)
                return true
            case .dropped, .aux, nil:
                continue
            default:
                return true  // the walk stops at it
            }
        }
        return true
    }
}
