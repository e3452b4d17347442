import TrailFormat

/// Synchronous calls straight from ENTER and EXIT records into a report's tallies (`ProfileReading`,
/// `ProfileInHalves`): the nesting rules of CallBuilder's `enter`, `exit`
/// and `endFrame` (calls whose exits were lost end where a shallower record shows it) on frames of six fields,
/// without the watermark merge, call events or a visitor. A profile is sums, minima and maxima per function,
/// and a synchronous call's figures depend on its own thread's records alone, so the threads' records need not
/// be merged by time. Names and threads met on the way go to the builder as its reading would have taken them;
/// values are checked on the builder's thread states as its reading checks them (for the file's count of
/// values skipped; a profile shows none). `install` leaves the builder's stacks as its reading would have, for it
/// to go on where the walk stopped.
struct SyncCallWalk {
    /// An open call: its site and `sameName[site]` (kept so that a return needs no lookup), its start, the time
    /// of the calls it made so far, and the position of its ENTER record.
    struct Frame {
        var site, name: Int32
        var start, childTicks, position: UInt64
        var outermost: Bool
        /// No call of its name is open above the unknown calls it was made in (`startsUnknown`): it is outermost
        /// unless one of them has its name (`UnknownStart.conditionalTotals`).
        var aboveUnknown = false
        /// A call open where the walk started, unknown to it (site -1).
        var isUnknown: Bool { site < 0 }
    }

    /// One thread's open calls and, per name (`sameName`), how many are open, as `CallBuilder.ThreadState` keeps
    /// them; in buffers of its own, since an array's uniqueness check on every push and pop was a third of the walk.
    final class Thread {
        private(set) var frames = UnsafeMutablePointer<Frame>.allocate(capacity: 64)
        private var capacity = 64
        private(set) var count = 0
        private(set) var open = UnsafeMutablePointer<Int32>.allocate(capacity: 0)
        private(set) var names = 0
        var position: UInt64 = 0
        /// What a walk that starts inside the file learns of the calls open there (nil otherwise).
        var unknownStart: UnknownStart?
        /// Of those calls, how many are still open (the bottom of the stack).
        var unknownLeft = 0

        deinit {
            frames.deallocate()
            open.deallocate()
        }

        @inline(__always) func push(_ frame: Frame) {
            if count == capacity {
                let larger = UnsafeMutablePointer<Frame>.allocate(capacity: capacity * 2)
                larger.moveInitialize(from: frames, count: count)
                frames.deallocate()
                frames = larger
                capacity *= 2
            }
            (frames + count).initialize(to: frame)
            count += 1
        }

        @inline(__always) func pop() -> Frame {
            count -= 1
            return (frames + count).move()
        }

        /// Makes room for name `name`'s count.
        func makeRoom(forName name: Int) {
            guard name >= names else { return }
            let larger = UnsafeMutablePointer<Int32>.allocate(capacity: name + 16)
            larger.moveInitialize(from: open, count: names)
            (larger + names).initialize(repeating: 0, count: name + 16 - names)
            open.deallocate()
            open = larger
            names = name + 16
        }
    }

    var threads: [Thread] = []
    var lastTicks: UInt64 = 0
    /// The walk starts inside the file (the second half of `ProfileInHalves`): each thread's open calls there are
    /// unknown, as many as its first record's depth says (`UnknownStart`); it stops at a depth it cannot tell.
    var startsUnknown = false

    /// Takes the cursor's chunks until it stops, adding every call that ends to `tallies`; nil then. It stops early at
    /// the first record of a task or an async call, or a tracer span, whose effects it does not follow, or a
    /// DATA record without its VALUE record when values may have been seen before the start (`startsUnknown`), and returns what is left of that chunk (the records from that one on) for the builder,
    /// after `install`, to go on with.
    mutating func walk(
        _ chunks: TraceFile.ChunkCursor, _ builder: inout CallBuilder, _ tallies: SiteTallies
    ) -> TraceFile.ChunkCursor.Chunk? {
        lastTicks = max(lastTicks, builder.process.lastTicks)
        while let next = chunks.next() {
            builder.file.metadata.absorb(next.chunk)
            switch next.chunk {
            case .records(var records, let base):
                let index = Int(builder.thread(slot: records.slot, tid: records.tid))
                while threads.count < builder.threads.count {
                    threads.append(Thread())
                    if startsUnknown { threads[threads.count - 1].unknownStart = UnknownStart() }
                }
                threads[index].position = records.position
                if let unknown = threads[index].unknownStart, unknown.count == nil {
                    guard threads[index].guessUnknownCalls(base, count: records.count) else { return next }
                }
                let state = builder.threads[index]
                var taken = 0
                while true {
                    // The DATA records of a VALUE record before (one that ended the thread's last chunk too).
                    taken = takeValueData(base, from: taken, count: records.count, state, &builder)
                    threads[index].position = records.position &+ UInt64(taken)
                    taken += take(
                        base + taken * TraceRecord.size, count: records.count - taken, threads[index], &builder,
                        tallies)
                    guard taken < records.count else { break }
                    let record = TraceRecord(base, at: taken * TraceRecord.size)
                    // DATA without its VALUE record is noted once values were seen, maybe before the start.
                    guard record.kind == .aux, !startsUnknown || ValueRecord.isValue(record) || state.valuesSeen
                    else { break }
                    // A value, checked as its reading checks it (a profile shows none).
                    builder.takeValue(record, state: state)
                    taken += 1
                }
                guard taken == records.count else {
                    records.position &+= UInt64(taken)
                    records.count -= taken
                    return .init(chunk: .records(records, base + taken * TraceRecord.size), block: next.block)
                }
            case .thread(let thread):
                builder.noteThread(thread)
            case .span:
                return next
            case .info, .name, .clock, .end, .cut, .watermark, .unknown:
                break
            }
        }
        return nil
    }

    /// A thread's records in order, up to the first the walk does not follow; returns how many it took.
    private mutating func take(
        _ base: UnsafeRawPointer, count: Int, _ thread: Thread, _ builder: inout CallBuilder, _ tallies: SiteTallies
    ) -> Int {
        // Kinds as the word's top bits: no optional enum made per record.
        let enter = UInt64(TraceRecord.Kind.enter.rawValue)
        let exit = UInt64(TraceRecord.Kind.exit.rawValue)
        let dropped = UInt64(TraceRecord.Kind.dropped.rawValue)
        let depthMax = Int(TraceRecord.depthMax)
        let first = thread.position
        var lastTicks = self.lastTicks
        defer { self.lastTicks = lastTicks }
        // The last site met, and its name: a thread mostly calls the few functions it just called.
        var lastAddress: UInt64 = 0
        var lastSite: Int32 = 0
        var lastName = 0
        for index in 0 ..< count {
            let record = TraceRecord(base, at: index &* TraceRecord.size)
            let kind = record.word >> TraceRecord.kindShift
            if kind == enter {
                let depth = record.depth
                while thread.count > depth, depth < depthMax { end(thread, at: record.time, tallies) }
                if record.address != lastAddress || lastAddress == 0 {
                    lastAddress = record.address
                    lastSite = builder.site(record.address)
                    lastName = Int(builder.sameName[Int(lastSite)])
                    thread.makeRoom(forName: lastName)
                }
                let outermost = thread.open[lastName] == 0
                thread.push(
                    Frame(
                        site: lastSite, name: Int32(lastName), start: record.time, childTicks: 0,
                        position: first &+ UInt64(index), outermost: outermost && thread.unknownLeft == 0,
                        aboveUnknown: outermost && thread.unknownLeft > 0))
                thread.open[lastName] += 1
            } else if kind == exit {
                if thread.count > 0 {
                    let depth = record.depth
                    while thread.count > depth + 1, depth < depthMax { end(thread, at: record.time, tallies) }
                    end(thread, at: record.time, tallies)
                }
            } else if kind == dropped {
                tallies.dropped(record.address)
            } else if TraceRecord.Kind(rawValue: UInt8(kind)) != nil {
                // A task, an async call, or AUX (a value, for `walk` to take; unknown kinds are skipped, as
                // CallBuilder does).
                thread.position = first &+ UInt64(index)
                return index
            }
            if record.time > lastTicks { lastTicks = record.time }
        }
        thread.position = first &+ UInt64(count)
        return count
    }

    /// The DATA records from `index` on while a VALUE record waits for some (on the builder's state, as its
    /// reading keeps it); returns the index of the first other record, which cut the value short if it still
    /// waited, and is taken as usual.
    private func takeValueData(
        _ base: UnsafeRawPointer, from start: Int, count: Int, _ state: CallBuilder.ThreadState,
        _ builder: inout CallBuilder
    ) -> Int {
        var index = start
        while state.valueDataLeft > 0, index < count,
            builder.takeValueData(TraceRecord(base, at: index &* TraceRecord.size), state: state)
        {
            index += 1
        }
        return index
    }

    @inline(__always)
    func end(_ thread: Thread, at time: UInt64, _ tallies: SiteTallies) {
        let frame = thread.pop()
        if frame.isUnknown {
            thread.unknownLeft -= 1
            return thread.unknownStart!.ended(frame, at: time, depth: thread.count)
        }
        thread.open[Int(frame.name)] -= 1
        let duration = max(time, frame.start) - frame.start
        if thread.count > 0 { thread.frames[thread.count - 1].childTicks &+= duration }
        tallies.ended(site: frame.site, duration: duration, childTicks: frame.childTicks, outermost: frame.outermost)
        if frame.aboveUnknown { thread.unknownStart!.addTotal(duration, site: frame.site) }
    }

    /// The stacks as CallBuilder keeps them (span ids, parents, depths), for the builder to go on reading.
    func install(into builder: inout CallBuilder) {
        for (index, thread) in threads.enumerated() {
            let state = builder.threads[index]
            var parent: CallBuilder.Frame?
            for depth in 0 ..< thread.count {
                let open = thread.frames[depth]
                var frame = CallBuilder.Frame(
                    site: open.site, start: open.start,
                    spanId: UInt64(state.slot + 1) << 44 | (open.position & (1 << 44 - 1)),
                    parentSpanId: parent?.spanId ?? 0, depth: Int32(depth), outermost: open.outermost,
                    parentThread: parent == nil ? -1 : Int32(index), parentToken: 0)
                frame.childTicks = open.childTicks
                state.stack.append(frame)
                parent = frame
            }
            state.open = Array(UnsafeBufferPointer(start: thread.open, count: thread.names))
        }
        builder.process.lastTicks = max(builder.process.lastTicks, lastTicks)
    }
}
