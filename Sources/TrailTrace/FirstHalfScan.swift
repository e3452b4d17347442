import TrailFormat

/// Every thread's open synchronous calls where the first half of a file ends, found by a light pass over it for
/// the thread that reads the second half (`ProfileInHalves`): the nesting rules of CallBuilder's `enter`, `exit`
/// and `endFrame` (calls whose exits were lost end where a shallower record shows it), on frames of five fields
/// instead of calls handed to a visitor. Names and threads met on the way go to the builder as its reading would
/// have taken them.
struct FirstHalfScan {
    struct Frame {
        var site: Int32
        var outermost: Bool
        var start: UInt64
        var childTicks: UInt64 = 0
        var position: UInt64
    }

    struct Thread {
        var frames: [Frame] = []
        /// Per name (`sameName`), open calls on this stack, as `CallBuilder.ThreadState.open`.
        var open: [Int32] = []
        var position: UInt64 = 0
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
                guard Self.scan(base, count: records.count, &threads[index], &builder, &lastTicks) else { return false }
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

    private static func scan(
        _ base: UnsafeRawPointer, count: Int, _ thread: inout Thread, _ builder: inout CallBuilder,
        _ lastTicks: inout UInt64
    ) -> Bool {
        let aux = UInt64(TraceRecord.Kind.aux.rawValue)
        let depthMax = Int(TraceRecord.depthMax)
        for index in 0 ..< count {
            let record = TraceRecord(base, at: index &* TraceRecord.size)
            if record.word >> TraceRecord.kindShift == aux { return false }
            if record.time > lastTicks { lastTicks = record.time }
            switch record.kind {
            case .enter:
                let depth = record.depth
                while thread.frames.count > depth, depth < depthMax { end(&thread, at: record.time, builder) }
                let site = builder.site(record.address)
                let name = Int(builder.sameName[Int(site)])
                if thread.open.count <= name {
                    thread.open.append(contentsOf: repeatElement(0, count: name + 1 - thread.open.count))
                }
                thread.frames.append(
                    Frame(site: site, outermost: thread.open[name] == 0, start: record.time, position: thread.position))
                thread.open[name] += 1
            case .exit:
                if !thread.frames.isEmpty {
                    let depth = record.depth
                    while thread.frames.count > depth + 1, depth < depthMax { end(&thread, at: record.time, builder) }
                    end(&thread, at: record.time, builder)
                }
            case .task, .asyncEnter, .asyncExit, .aux:
                return false
            case .dropped, nil:
                break
            }
            thread.position += 1
        }
        return true
    }

    @inline(__always)
    private static func end(_ thread: inout Thread, at time: UInt64, _ builder: CallBuilder) {
        let frame = thread.frames.removeLast()
        thread.open[Int(builder.sameName[Int(frame.site)])] -= 1
        if !thread.frames.isEmpty {
            thread.frames[thread.frames.count - 1].childTicks &+= max(time, frame.start) - frame.start
        }
    }

    /// The stacks as CallBuilder keeps them (span ids, parents, depths), for the second half's reading.
    private func install(into builder: inout CallBuilder) {
        for (index, thread) in threads.enumerated() {
            let state = builder.threads[index]
            var parent: CallBuilder.Frame?
            for (depth, open) in thread.frames.enumerated() {
                var frame = CallBuilder.Frame(
                    site: open.site, start: open.start,
                    spanId: UInt64(state.slot + 1) << 44 | (open.position & (1 << 44 - 1)),
                    parentSpanId: parent?.spanId ?? 0, depth: Int32(depth), outermost: open.outermost,
                    parentThread: parent == nil ? -1 : Int32(index), parentToken: 0)
                frame.childTicks = open.childTicks
                state.stack.append(frame)
                parent = frame
            }
            state.open = thread.open
        }
        builder.process.lastTicks = max(builder.process.lastTicks, lastTicks)
    }
}
