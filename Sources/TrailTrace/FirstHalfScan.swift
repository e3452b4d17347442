import TrailFormat

/// Every thread's open synchronous calls where the first half of a file ends, found by a light pass over it for
/// the thread that reads the second half (`ProfileInHalves`): the nesting rules of CallBuilder's `enter`, `exit`
/// and `endFrame` (calls whose exits were lost end where a shallower record shows it), on frames of five fields
/// instead of calls handed to a visitor. Names and threads met on the way go to the builder as its reading would
/// have taken them.
struct FirstHalfScan {
    /// An open call: its site and `sameName[site]` (kept so that a return needs no lookup), its start, the time
    /// of the calls it made so far, and the position of its ENTER record.
    struct Frame {
        var site, name: Int32
        var start, childTicks, position: UInt64
        var outermost: Bool
    }

    /// One thread's open calls and, per name (`sameName`), how many are open, as `CallBuilder.ThreadState` keeps
    /// them; in buffers of its own, since an array's uniqueness check on every push and pop was a third of the scan.
    final class Thread {
        private(set) var frames = UnsafeMutablePointer<Frame>.allocate(capacity: 64)
        private var capacity = 64
        private(set) var count = 0
        private(set) var open = UnsafeMutablePointer<Int32>.allocate(capacity: 0)
        private(set) var names = 0
        var position: UInt64 = 0

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

    private var threads: [Thread] = []
    private var lastTicks: UInt64 = 0

    /// Scans the blocks before `end` and leaves `builder` as reading them would have, its stacks included; false
    /// at the first record of a task or an async call, or a tracer span, whose effects the scan does not follow.
    mutating func run(_ file: TraceFile, until end: Int, into builder: inout CallBuilder) -> Bool {
        let chunks = file.chunks()
        chunks.end = end
        lastTicks = builder.process.lastTicks
        while let next = chunks.next() {
            file.metadata.absorb(next.chunk)
            switch next.chunk {
            case .records(let records, let base):
                let index = Int(builder.thread(slot: records.slot, tid: records.tid))
                while threads.count < builder.threads.count { threads.append(Thread()) }
                threads[index].position = records.position
                guard scan(base, count: records.count, threads[index], &builder) else { return false }
            case .thread(let thread):
                builder.noteThread(thread)
            case .span:
                return false
            case .info, .name, .clock, .end, .cut, .watermark, .unknown:
                break
            }
        }
        if chunks.truncated { file.truncated = true }
        install(into: &builder)
        return true
    }

    private mutating func scan(
        _ base: UnsafeRawPointer, count: Int, _ thread: Thread, _ builder: inout CallBuilder
    ) -> Bool {
        // Kinds as the word's top bits: no optional enum made per record.
        let enter = UInt64(TraceRecord.Kind.enter.rawValue)
        let exit = UInt64(TraceRecord.Kind.exit.rawValue)
        let dropped = UInt64(TraceRecord.Kind.dropped.rawValue)
        let depthMax = Int(TraceRecord.depthMax)
        let first = thread.position
        defer { thread.position = first &+ UInt64(count) }
        var lastTicks = self.lastTicks
        defer { self.lastTicks = lastTicks }
        // The last site met, and its name: a thread mostly calls the few functions it just called.
        var lastAddress: UInt64 = 0
        var lastSite: Int32 = 0
        var lastName = 0
        for index in 0 ..< count {
            let record = TraceRecord(base, at: index &* TraceRecord.size)
            let kind = record.word >> TraceRecord.kindShift
            if record.time > lastTicks { lastTicks = record.time }
            if kind == enter {
                let depth = record.depth
                while thread.count > depth, depth < depthMax { end(thread, at: record.time) }
                if record.address != lastAddress || lastAddress == 0 {
                    lastAddress = record.address
                    lastSite = builder.site(record.address)
                    lastName = Int(builder.sameName[Int(lastSite)])
                    thread.makeRoom(forName: lastName)
                }
                thread.push(
                    Frame(
                        site: lastSite, name: Int32(lastName), start: record.time, childTicks: 0,
                        position: first &+ UInt64(index), outermost: thread.open[lastName] == 0))
                thread.open[lastName] += 1
            } else if kind == exit {
                if thread.count > 0 {
                    let depth = record.depth
                    while thread.count > depth + 1, depth < depthMax { end(thread, at: record.time) }
                    end(thread, at: record.time)
                }
            } else if kind != dropped, TraceRecord.Kind(rawValue: UInt8(kind)) != nil {
                return false  // a task, an async call or AUX (unknown kinds are skipped, as CallBuilder does)
            }
        }
        return true
    }

    @inline(__always)
    private func end(_ thread: Thread, at time: UInt64) {
        let frame = thread.pop()
        thread.open[Int(frame.name)] -= 1
        if thread.count > 0 {
            thread.frames[thread.count - 1].childTicks &+= max(time, frame.start) - frame.start
        }
    }

    /// The stacks as CallBuilder keeps them (span ids, parents, depths), for the second half's reading.
    private func install(into builder: inout CallBuilder) {
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
