import TrailFormat

/// The state of one process while its records stream by: it takes records, watermarks, threads and tracer spans
/// (`take`) from its `TraceReader`, and hands the visitor calls.
struct CallBuilder {
    let process: TraceProcess
    let file: TraceFile

    struct Frame {
        var site: Int32
        var start: UInt64
        var spanId: UInt64
        var parentSpanId: UInt64
        var childTicks: UInt64 = 0
        var depth: Int32
        var tag: Int32 = -1
        var outermost: Bool
        var parentThread: Int32 = -1
        /// The task it runs in (0: none known), and whether it is the first call of that task.
        var task: UInt64 = 0
        var startsTask = false
        /// The async call it hangs under when it is a task's root call (0: none).
        var parentToken: UInt64
        /// A tracer span it hangs under on its thread, inside a synchronous call (0: none).
        var spanParent: UInt64 = 0
        var isSpan = false
    }

    struct AsyncFrame {
        var frame: Frame
        var thread: Int32
        var task: UInt64
        /// A tracer span started inside a synchronous call: that call's index on its thread's stack.
        var syncParent = -1
    }

    /// A tracer span open on a thread outside any task's async calls: inside a synchronous call (`depth` is
    /// that call's stack depth) or at the thread's top level (0, no task). The thread's calls at that depth
    /// hang under it while it is open.
    struct ThreadSpan {
        var depth: Int
        var token: UInt64
    }

    final class ThreadState {
        var stack: [Frame] = []
        /// Per name (`sameName`), open calls on this stack (for recursion).
        var open: [Int32] = []
        var pending = PendingRecords()
        /// The position of the next pending record.
        var position: UInt64 = 0
        var slot: UInt32
        // TASK and ASYNC_ENTER carry AUX records after them.
        var task: UInt64 = 0
        var taskParent: UInt64 = 0
        var awaiting: Awaiting = .nothing
        var held = TraceRecord(time: 0, word: 0)
        var heldPosition: UInt64 = 0
        var heldAux = TraceRecord(time: 0, word: 0)
        /// Tracer spans open on this thread's stack, innermost last.
        var spans: [ThreadSpan] = []
        /// A VALUE record waiting for its DATA records (CallBuilder+Values), and whether values were seen.
        var valueParts: [TraceRecord] = []
        var valueDataLeft = 0
        var valuesSeen = false
        /// The async call entered last on this thread, and the depth it entered at: its arguments follow.
        var asyncArguments: (spanId: UInt64, depth: Int)?
        /// The last result or error read, and the position of its last record.
        var lastResult: (value: CallValue, end: UInt64)?

        init(slot: UInt32) { self.slot = slot }
        deinit { pending.freeCopies() }
    }

    enum Awaiting { case nothing, taskParent, asyncEnterToken, asyncEnterParent, asyncExitToken }

    var threads: [ThreadState] = []
    var threadIndex: [UInt64: Int32] = [:]
    var siteOf = AddressMap()
    /// `SiteTable.sameName`, copied as sites appear: read on every call.
    var sameName: [Int32] = []
    var openAsync: [UInt64: AsyncFrame] = [:]
    /// Per task, its open async calls' tokens, innermost last.
    var taskStacks: [UInt64: [UInt64]] = [:]
    /// Async calls that ended, for child tasks that outlive them: token -> (span id, depth). Bounded.
    var endedAsync: [UInt64: (spanId: UInt64, depth: Int32)] = [:]
    var endedOrder: [UInt64] = []
    var endedNext = 0
    static let endedLimit = 1 << 16
    /// Records held before a watermark releases them; past this, the oldest are released anyway (a writer
    /// that never wrote watermarks).
    var held = 0
    static let heldLimit = 1 << 23
    /// Set when held records were handed on, so that the blocks they were in may be released.
    var handedOn = false

    init(process: TraceProcess) {
        self.process = process
        file = process.file
    }

    // MARK: chunks

    /// What the process's threads did: records, watermarks, threads and tracer spans (metadata is
    /// `TraceMetadata`'s). Records of block `block` are held where they lie; `RecordRun.owned` copies them, for
    /// bytes that will not stay (a followed file's).
    @inline(__always)
    mutating func take<V: CallVisitor>(_ chunk: TraceChunk, block: Int, _ visitor: inout V) {
        switch chunk {
        case .records(let records, let base): addRecords(records, at: base, block: block, &visitor)
        case .watermark(let watermark): release(upTo: watermark, &visitor)
        case .thread(let thread): noteThread(thread)
        case .span(let span): noteSpan(span)
        case .info, .name, .clock, .end, .cut, .unknown: break
        }
    }

    /// The end of what will be read: every held record, then calls still open end at the last record.
    mutating func finish<V: CallVisitor>(_ visitor: inout V) {
        release(upTo: .max, &visitor)
        finishValues()
        finishOpenCalls(&visitor)
        if file.endDropped > process.dropped { process.dropped = file.endDropped }
        visitor.endProcess(process)
    }

    mutating func thread(slot: UInt32, tid: UInt32) -> Int32 {
        let key = UInt64(slot) << 32 | UInt64(tid)
        if let index = threadIndex[key] { return index }
        let index = Int32(threads.count)
        threadIndex[key] = index
        threads.append(ThreadState(slot: slot))
        process.threads.append(TraceProcess.Thread(slot: slot, tid: tid))
        return index
    }

    mutating func noteThread(_ chunk: TraceChunks.Thread) {
        let index = Int(thread(slot: chunk.slot, tid: chunk.tid))
        process.threads[index].name = chunk.name
        process.threads[index].dropped = max(process.threads[index].dropped, chunk.dropped)
    }

    /// A tracer span's details: a start's, or an end's merged over its start's.
    mutating func noteSpan(_ chunk: TraceChunks.Span) {
        let details = SpanDetails(decoding: chunk.details)
        let id = 1 << 63 | chunk.token
        process.spanDetails[id] = process.spanDetails[id].map { $0.merged(with: details) } ?? details
    }

    mutating func addRecords<V: CallVisitor>(
        _ chunk: TraceChunks.Records, at base: UnsafeRawPointer, block: Int, _ visitor: inout V
    ) {
        let state = threads[Int(thread(slot: chunk.slot, tid: chunk.tid))]
        if state.pending.isEmpty { state.position = chunk.position }
        if block == RecordRun.owned, chunk.count > 0 {
            let copy = UnsafeMutableRawPointer.allocate(byteCount: chunk.count * TraceRecord.size, alignment: 16)
            copy.copyMemory(from: base, byteCount: chunk.count * TraceRecord.size)
            state.pending.append(RecordRun(base: UnsafeRawPointer(copy), count: chunk.count, block: RecordRun.owned))
        } else {
            state.pending.append(RecordRun(base: base, count: chunk.count, block: block))
        }
        held += chunk.count
        if held > Self.heldLimit { release(upTo: .max, &visitor) }
    }

    /// Hands on every held record at or before `watermark`, all threads merged by time.
    mutating func release<V: CallVisitor>(upTo watermark: UInt64, _ visitor: inout V) {
        var active: [Int] = []
        for index in threads.indices where !threads[index].pending.isEmpty {
            active.append(index)
        }
        if active.count == 1 {
            drain(active[0], upTo: watermark, before: nil, &visitor)
        } else if !active.isEmpty {
            // Runs: the thread with the earliest next record goes until another thread's next record is earlier.
            while true {
                var first = -1
                var firstTime = UInt64.max
                var secondTime = UInt64.max
                for index in active where !threads[index].pending.isEmpty {
                    let time = threads[index].pending.nextTime
                    if time < firstTime {
                        secondTime = firstTime
                        firstTime = time
                        first = index
                    } else if time < secondTime {
                        secondTime = time
                    }
                }
                guard first >= 0, firstTime <= watermark else { break }
                drain(first, upTo: min(watermark, secondTime), before: secondTime, &visitor)
            }
        }
    }

    /// One thread's held records up to `limit` (and, when `before` is given, strictly before it, so ties
    /// alternate fairly).
    mutating func drain<V: CallVisitor>(_ index: Int, upTo limit: UInt64, before: UInt64?, _ visitor: inout V) {
        let state = threads[index]
        var total = 0
        while !state.pending.isEmpty {
            let handled = handleRun(
                state.pending.current, from: state.pending.offset, upTo: limit, before: before,
                takeFirst: total == 0, position: state.position, thread: Int32(index), state: state, &visitor)
            total += handled
            state.position += UInt64(handled)
            if !state.pending.advance(by: handled) { break }
        }
        held -= total
        if total > 0 { handedOn = true }
    }

    /// Hands on `records[start...]` up to `limit` (see `drain`; `takeFirst`: the first record goes even at
    /// `before`); returns how many it handled.
    @inline(__always)
    mutating func handleRun<V: CallVisitor>(
        _ records: RecordRun, from start: Int, upTo limit: UInt64, before: UInt64?,
        takeFirst: Bool, position first: UInt64, thread: Int32, state: ThreadState,
        _ visitor: inout V
    ) -> Int {
        var head = start
        var position = first
        while head < records.count {
            let record = records[head]
            // AUX records carry tokens in their time field: they go with the record before them.
            if record.word >> TraceRecord.kindShift != UInt64(TraceRecord.Kind.aux.rawValue) {
                if record.time > limit { break }
                if let before, record.time >= before, head > start || !takeFirst { break }
                if record.time > process.lastTicks { process.lastTicks = record.time }
            }
            handle(record, position: position, thread: thread, state: state, &visitor)
            head += 1
            position += 1
        }
        return head - start
    }
}
