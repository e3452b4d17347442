/// The two halves of a file walked apart (`ProfileInHalves`) made one walk: the second started with each
/// thread's open calls unknown (`UnknownStart`); they are this walk's open calls where it stopped.
extension SyncCallWalk {
    /// Settles `second` (its sites and threads `secondBuilder`'s) onto this walk, as if this one had gone on
    /// through its records: the unknown calls that ended there end here with the time of their calls on both
    /// sides, the conditional totals count where no open call has their name, and the second's open calls go
    /// on this walk's stacks. False, changing nothing, when a thread's guessed count of open calls is not this
    /// walk's (exits lost at the split): this walk then reads the second half itself.
    mutating func join(
        _ second: SyncCallWalk, from secondBuilder: CallBuilder, into builder: inout CallBuilder, _ tallies: SiteTallies
    ) -> Bool {
        var firstIndex: [Int?] = []
        for (index, thread) in second.threads.enumerated() {
            let key = secondBuilder.process.threads[index]
            let mine = builder.threadIndex[UInt64(key.slot) << 32 | UInt64(key.tid)].map(Int.init)
            let open = mine.map { $0 < threads.count ? threads[$0].count : 0 } ?? 0
            if let count = thread.unknownStart?.count, count != open { return false }
            firstIndex.append(mine)
        }
        var sites: [Int32: Int32] = [:]
        func site(_ other: Int32) -> Int32 {
            if let known = sites[other] { return known }
            let found = builder.site(named: secondBuilder.process.sites.texts[Int(other)])
            sites[other] = found
            return found
        }
        for (index, other) in second.threads.enumerated() {
            guard let unknown = other.unknownStart, unknown.count != nil else { continue }
            let thread = Int(
                firstIndex[index]
                    ?? Int(
                        builder.thread(
                            slot: secondBuilder.process.threads[index].slot,
                            tid: secondBuilder.process.threads[index].tid)))
            while threads.count < builder.threads.count { threads.append(Thread()) }
            let mine = threads[thread]
            // Where each name is first open on this side: a call above `n` unknown calls is outermost unless
            // one of the first `n` has its name.
            var lowest: [Int32: Int] = [:]
            for depth in (0 ..< mine.count).reversed() { lowest[mine.frames[depth].name] = depth }
            func outermost(_ name: Int32, above unknownBelow: Int) -> Bool { lowest[name] ?? .max >= unknownBelow }
            for ended in unknown.ended {
                mine.frames[ended.depth].childTicks &+= ended.childTicks
                end(mine, at: ended.time, tallies)
            }
            for depth in 0 ..< other.unknownLeft { mine.frames[depth].childTicks &+= other.frames[depth].childTicks }
            unknown.settle()
            for total in unknown.conditionalTotals {
                let found = site(total.site)
                if outermost(builder.sameName[Int(found)], above: total.unknownBelow) {
                    tallies.addTotal(total.ticks, site: found)
                }
            }
            for depth in other.unknownLeft ..< other.count {
                var frame = other.frames[depth]
                frame.site = site(frame.site)
                frame.name = builder.sameName[Int(frame.site)]
                if frame.aboveUnknown { frame.outermost = outermost(frame.name, above: other.unknownLeft) }
                frame.aboveUnknown = false
                mine.makeRoom(forName: Int(frame.name))
                mine.push(frame)
                mine.open[Int(frame.name)] += 1
            }
        }
        lastTicks = max(lastTicks, second.lastTicks)
        return true
    }

    /// Ends every open call at `time` (the process's last record), as `CallBuilder.finishOpenCalls` does.
    mutating func finish(at time: UInt64, _ tallies: SiteTallies) {
        for thread in threads {
            while thread.count > 0 { end(thread, at: time, tallies) }
        }
    }
}
