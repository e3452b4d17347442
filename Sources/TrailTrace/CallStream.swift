import TrailFormat

/// Reads trace files in one pass and hands a visitor every call at its start and end. Threads of a process
/// are merged by time with the writer's watermarks, so only the records since the last watermark are held;
/// what is kept beyond that is bounded by the sites, threads, call depth and open async calls, never by the
/// number of records. Synchronous calls nest by thread, async calls by task, and a child task's calls hang
/// under the async call that created it (Docs/trace-format.md, "Task trees").
public struct CallStream {
    public let sites = SiteTable()

    public init() {}

    /// Reads `files` one after another (each is one process) into `visitor`.
    public func stream<V: CallVisitor>(_ files: [TraceFile], into visitor: inout V) {
        for file in files {
            var builder = CallBuilder(process: TraceProcess(file: file, sites: sites))
            builder.run(&visitor)
        }
    }

    // The viewers, specialized here: a generic call from another module would not be, and this loop runs
    // once per record.
    public func read(_ files: [TraceFile], into visitor: inout Profile) { stream(files, into: &visitor) }
    public func read(_ files: [TraceFile], into visitor: inout Replay) { stream(files, into: &visitor) }
    public func read(_ files: [TraceFile], into visitor: inout FlameGraph) { stream(files, into: &visitor) }
    public func read(_ files: [TraceFile], into visitor: inout ChromeTrace) { stream(files, into: &visitor) }
    public func read(_ files: [TraceFile], into visitor: inout SpanSelection) { stream(files, into: &visitor) }
}

/// UInt64 keys (never 0) to Int32 values: open addressing, for the per-record site lookup.
struct AddressMap {
    private var keys: [UInt64] = Array(repeating: 0, count: 1024)
    private var values: [Int32] = Array(repeating: 0, count: 1024)
    private var count = 0

    @inline(__always) func find(_ key: UInt64) -> Int32? {
        let mask = keys.count - 1
        var slot = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
        while true {
            let found = keys[slot]
            if found == key { return values[slot] }
            if found == 0 { return nil }
            slot = (slot + 1) & mask
        }
    }

    mutating func insert(_ key: UInt64, _ value: Int32) {
        if (count + 1) * 2 > keys.count { grow() }
        let mask = keys.count - 1
        var slot = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
        while keys[slot] != 0, keys[slot] != key { slot = (slot + 1) & mask }
        if keys[slot] == 0 { count += 1 }
        keys[slot] = key
        values[slot] = value
    }

    private mutating func grow() {
        let old = zip(keys, values).filter { $0.0 != 0 }
        keys = Array(repeating: 0, count: keys.count * 2)
        values = Array(repeating: 0, count: keys.count)
        count = 0
        for (key, value) in old { insert(key, value) }
    }
}

/// The state of one process while its records stream by.
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

    mutating func run<V: CallVisitor>(_ visitor: inout V) {
        visitor.beginProcess(process)
        // The cursor's mapping holds the pending records: it lives until they are all handed on.
        let chunks = file.chunks()
        withExtendedLifetime(chunks) {
            while let chunk = chunks.next() {
                switch TraceLayout.Chunk(rawValue: chunk.type) {
                case .records:
                    addRecords(chunk.payload, block: chunk.block, &visitor)
                    if chunk.block < chunks.firstBlockInUse { chunks.firstBlockInUse = chunk.block }
                case .watermark:
                    if chunk.payload.count >= 8 { release(upTo: chunk.payload.loadUnaligned(as: UInt64.self), &visitor) }
                case .thread: noteThread(chunk.payload)
                case .span: noteSpan(chunk.payload)
                default: break
                }
                if chunks.firstBlockInUse != .max, (chunk.block - chunks.firstBlockInUse) * file.header.blockSize > file.heldBytesLimit {
                    // A thread holds records from far back (a quiet thread, a clock that jumped): copy them.
                    for state in threads { state.pending.adopt(before: chunk.block) }
                    handedOn = true
                }
                if handedOn {
                    handedOn = false
                    chunks.firstBlockInUse = threads.lazy.compactMap { $0.pending.firstBlock }.min() ?? .max
                }
            }
            release(upTo: .max, &visitor)
        }
        finishOpenCalls(&visitor)
        if file.endDropped > process.dropped { process.dropped = file.endDropped }
        visitor.endProcess(process)
    }

    // MARK: chunks

    mutating func thread(slot: UInt32, tid: UInt32) -> Int32 {
        let key = UInt64(slot) << 32 | UInt64(tid)
        if let index = threadIndex[key] { return index }
        let index = Int32(threads.count)
        threadIndex[key] = index
        threads.append(ThreadState(slot: slot))
        process.threads.append(TraceProcess.Thread(slot: slot, tid: tid))
        return index
    }

    mutating func noteThread(_ payload: UnsafeRawBufferPointer) {
        guard payload.count >= 32 else { return }
        let slot = payload.loadUnaligned(as: UInt32.self), tid = payload.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
        let index = Int(thread(slot: slot, tid: tid))
        let name = UnsafeRawBufferPointer(rebasing: payload[8 ..< 24]).prefix { $0 != 0 }
        process.threads[index].name = String(decoding: name, as: UTF8.self)
        process.threads[index].dropped = max(process.threads[index].dropped, payload.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
    }

    /// A tracer span's details: a start's, or an end's merged over its start's.
    mutating func noteSpan(_ payload: UnsafeRawBufferPointer) {
        guard payload.count >= TraceLayout.spanHeaderSize else { return }
        let token = payload.loadUnaligned(as: UInt64.self)
        let length = Int(payload.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
        guard length <= payload.count - TraceLayout.spanHeaderSize else { return }
        let details = SpanDetails(decoding: UnsafeRawBufferPointer(rebasing: payload[TraceLayout.spanHeaderSize ..< TraceLayout.spanHeaderSize + length]))
        let id = 1 << 63 | token
        process.spanDetails[id] = process.spanDetails[id].map { $0.merged(with: details) } ?? details
    }

    mutating func addRecords<V: CallVisitor>(_ payload: UnsafeRawBufferPointer, block: Int, _ visitor: inout V) {
        guard payload.count >= TraceLayout.recordsHeaderSize else { return }
        let slot = payload.loadUnaligned(as: UInt32.self), tid = payload.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
        let position = payload.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        let count = (payload.count - TraceLayout.recordsHeaderSize) / TraceRecord.size
        let state = threads[Int(thread(slot: slot, tid: tid))]
        if state.pending.isEmpty { state.position = position }
        state.pending.append(RecordRun(base: payload.baseAddress! + TraceLayout.recordsHeaderSize, count: count, block: block))
        held += count
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
                var first = -1, firstTime = UInt64.max, secondTime = UInt64.max
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
            let handled = handleRun(state.pending.current, from: state.pending.offset, upTo: limit, before: before,
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
    mutating func handleRun<V: CallVisitor>(_ records: RecordRun, from start: Int, upTo limit: UInt64, before: UInt64?,
                                            takeFirst: Bool, position first: UInt64, thread: Int32, state: ThreadState,
                                            _ visitor: inout V) -> Int {
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

    // MARK: records

    mutating func site(_ address: UInt64) -> Int32 {
        if let index = siteOf.find(address) { return index }
        let text = file.names[address] ?? "0x" + String(address, radix: 16)
        let index = process.sites.index(text)
        siteOf.insert(address, index)
        while sameName.count < process.sites.sameName.count { sameName.append(process.sites.sameName[sameName.count]) }
        return index
    }

    @inline(__always)
    mutating func handle<V: CallVisitor>(_ record: TraceRecord, position: UInt64, thread: Int32, state: ThreadState, _ visitor: inout V) {
        switch state.awaiting {
        case .nothing: break
        case .taskParent:
            state.awaiting = .nothing
            if record.kind == .aux {
                state.taskParent = record.time
                return
            }
        case .asyncEnterToken:
            state.awaiting = .nothing
            if record.kind == .aux {
                state.heldAux = record
                state.awaiting = .asyncEnterParent
                return
            }
        case .asyncEnterParent:
            state.awaiting = .nothing
            let enter = state.held, token = state.heldAux
            asyncEnter(enter, token: token.time, task: token.address, parentToken: record.kind == .aux ? record.time : 0,
                       position: state.heldPosition, thread: thread, &visitor)
            if record.kind == .aux { return }
        case .asyncExitToken:
            state.awaiting = .nothing
            if record.kind == .aux {
                asyncExit(state.held, token: record.time, task: record.address, thread: thread, &visitor)
                return
            }
        }
        switch record.kind {
        case .enter: enter(record, position: position, thread: thread, state: state, &visitor)
        case .exit: exit(record, thread: thread, state: state, &visitor)
        case .task:
            state.task = record.address
            state.taskParent = 0
            state.awaiting = .taskParent
        case .asyncEnter:
            state.held = record
            state.heldPosition = position
            state.awaiting = .asyncEnterToken
        case .asyncExit:
            state.held = record
            state.awaiting = .asyncExitToken
        case .dropped:
            process.dropped += record.address
        case .aux, nil:
            break
        }
    }

    /// The call a new root call or async call hangs under: the task's innermost open async call, else the one
    /// its creator had open (possibly ended since), else none.
    mutating func parent(task: UInt64, parentToken: UInt64) -> (token: UInt64, spanId: UInt64, depth: Int32, tag: Int32, thread: Int32, task: UInt64)? {
        if task != 0, let token = taskStacks[task]?.last, let open = openAsync[token] {
            return (token, open.frame.spanId, open.frame.depth, open.frame.tag, open.thread, open.task)
        }
        guard parentToken != 0 else { return nil }
        if let open = openAsync[parentToken] {
            // A child task made while tracer spans are open above its creator's call in the creator's task
            // (an `async let` inside `withSpan`) hangs under the innermost of them.
            if let stack = taskStacks[open.task], let top = stack.last, top != parentToken, let span = openAsync[top], span.frame.isSpan {
                var index = stack.count - 1
                while index >= 0, openAsync[stack[index]]?.frame.isSpan == true { index -= 1 }
                if index >= 0, stack[index] == parentToken {
                    return (top, span.frame.spanId, span.frame.depth, span.frame.tag, span.thread, span.task)
                }
            }
            return (parentToken, open.frame.spanId, open.frame.depth, open.frame.tag, open.thread, open.task)
        }
        if let ended = endedAsync[parentToken] { return (0, ended.spanId, ended.depth, -1, -1, 0) }
        return nil
    }

    mutating func enter<V: CallVisitor>(_ record: TraceRecord, position: UInt64, thread: Int32, state: ThreadState, _ visitor: inout V) {
        let depth = record.depth
        // Calls whose exits were lost (a gap) end here.
        while state.stack.count > depth, depth < Int(TraceRecord.depthMax) {
            endFrame(thread: thread, at: record.time, unfinished: true, state: state, &visitor)
        }
        let site = site(record.address)
        let name = Int(sameName[Int(site)])
        if state.open.count <= name { state.open.append(contentsOf: repeatElement(0, count: name + 1 - state.open.count)) }
        let outermost = state.open[name] == 0
        state.open[name] += 1
        let spanId = UInt64(state.slot + 1) << 44 | (position & (1 << 44 - 1))
        var frame: Frame
        if let span = state.spans.last, span.depth == state.stack.count, state.stack.count > 0 || state.task == 0,
           let open = openAsync[span.token] {
            // Inside a tracer span that this thread opened at this depth.
            frame = Frame(site: site, start: record.time, spanId: spanId, parentSpanId: open.frame.spanId, depth: open.frame.depth + 1,
                          outermost: outermost, parentThread: open.thread, parentToken: state.stack.isEmpty ? span.token : 0)
            frame.spanParent = state.stack.isEmpty ? 0 : span.token
            frame.task = state.stack.last?.task ?? state.task
            frame.tag = visitor.enter(event(frame, thread: thread), parentTag: open.frame.tag)
        } else if let top = state.stack.last {
            frame = Frame(site: site, start: record.time, spanId: spanId, parentSpanId: top.spanId, depth: top.depth + 1,
                          outermost: outermost, parentThread: thread, parentToken: 0)
            frame.task = top.task
            frame.tag = visitor.enter(event(frame, thread: thread), parentTag: top.tag)
        } else {
            let parent = parent(task: state.task, parentToken: state.taskParent)
            frame = Frame(site: site, start: record.time, spanId: spanId, parentSpanId: parent?.spanId ?? 0,
                          depth: parent.map { $0.depth + 1 } ?? 0, outermost: outermost,
                          parentThread: parent?.thread ?? -1, parentToken: parent?.token ?? 0)
            frame.task = state.task
            frame.startsTask = state.task != 0 && parent?.task != state.task
            frame.tag = visitor.enter(event(frame, thread: thread), parentTag: parent?.tag ?? -1)
        }
        state.stack.append(frame)
    }

    mutating func exit<V: CallVisitor>(_ record: TraceRecord, thread: Int32, state: ThreadState, _ visitor: inout V) {
        guard !state.stack.isEmpty else { return }  // its entry was cut
        // Deeper calls whose exits were lost end here too.
        while state.stack.count > record.depth + 1, record.depth < Int(TraceRecord.depthMax) {
            endFrame(thread: thread, at: record.time, unfinished: true, state: state, &visitor)
        }
        endFrame(thread: thread, at: record.time, unfinished: false, state: state, &visitor)
        if state.stack.isEmpty {
            state.task = 0
            state.taskParent = 0
        }
    }

    mutating func endFrame<V: CallVisitor>(thread: Int32, at time: UInt64, unfinished: Bool, state: ThreadState, _ visitor: inout V) {
        guard let frame = state.stack.popLast() else { return }
        state.open[Int(sameName[Int(frame.site)])] -= 1
        let end = max(time, frame.start)
        if frame.spanParent != 0 {
            openAsync[frame.spanParent]?.frame.childTicks &+= end - frame.start
        } else if let last = state.stack.indices.last {
            state.stack[last].childTicks &+= end - frame.start
        } else if frame.parentToken != 0 {
            openAsync[frame.parentToken]?.frame.childTicks &+= end - frame.start
        }
        // Spans opened inside the call that ended are no longer inside anything on this thread.
        while let span = state.spans.last, span.depth > state.stack.count { state.spans.removeLast() }
        var call = event(frame, thread: thread)
        call.end = end
        call.unfinished = unfinished
        visitor.exit(call, tag: frame.tag)
    }

    mutating func asyncEnter<V: CallVisitor>(_ record: TraceRecord, token: UInt64, task: UInt64, parentToken: UInt64,
                                             position: UInt64, thread: Int32, _ visitor: inout V) {
        if process.spanDetails[1 << 63 | token] != nil {
            spanEnter(record, token: token, task: task, parentToken: parentToken, thread: thread, &visitor)
            return
        }
        let site = site(record.address)
        var frame: Frame
        var parentTag: Int32 = -1
        var parentTask: UInt64 = 0
        if let parent = parent(task: task, parentToken: parentToken) {
            parentTask = parent.task
            frame = Frame(site: site, start: record.time, spanId: 1 << 63 | token, parentSpanId: parent.spanId,
                          depth: parent.depth + 1, outermost: true,
                          parentThread: parent.thread, parentToken: parent.token)
            parentTag = parent.tag
        } else if let top = threads[Int(thread)].stack.last {
            frame = Frame(site: site, start: record.time, spanId: 1 << 63 | token, parentSpanId: top.spanId,
                          depth: top.depth + 1, outermost: true, parentThread: thread, parentToken: 0)
            parentTag = top.tag
            parentTask = top.task
        } else {
            frame = Frame(site: site, start: record.time, spanId: 1 << 63 | token, parentSpanId: 0, depth: 0,
                          outermost: true, parentToken: 0)
        }
        frame.task = task
        frame.startsTask = task != 0 && parentTask != task
        var call = event(frame, thread: thread)
        call.isAsync = true
        frame.tag = visitor.enter(call, parentTag: parentTag)
        openAsync[token] = AsyncFrame(frame: frame, thread: thread, task: task)
        taskStacks[task, default: []].append(token)
    }

    /// A tracer span: the innermost call or span open where it started (on its thread inside a synchronous
    /// call, else in its task), else the span its context named; the calls made where it started, while it is
    /// open, hang under it (Docs/trace-format.md, "Tracer spans").
    mutating func spanEnter<V: CallVisitor>(_ record: TraceRecord, token: UInt64, task: UInt64, parentToken: UInt64,
                                            thread: Int32, _ visitor: inout V) {
        let site = site(record.address)
        let state = threads[Int(thread)]
        let spanId: UInt64 = 1 << 63 | token
        var parent: (spanId: UInt64, depth: Int32, tag: Int32, thread: Int32, task: UInt64, token: UInt64)?
        var syncParent = -1
        let depth = state.stack.count
        if let span = state.spans.last, span.depth == depth, depth > 0 || task == 0, let open = openAsync[span.token] {
            parent = (open.frame.spanId, open.frame.depth, open.frame.tag, open.thread, open.task, span.token)
        } else if record.depth > 0, let top = state.stack.last {
            parent = (top.spanId, top.depth, top.tag, thread, top.task, 0)
            syncParent = depth - 1
        } else if let found = self.parent(task: task, parentToken: parentToken) {
            parent = (found.spanId, found.depth, found.tag, found.thread, found.task, found.token)
        }
        if parent == nil, let local = process.spanDetails[spanId]?.localParent, let open = openAsync[local & ~(1 << 63)] {
            parent = (open.frame.spanId, open.frame.depth, open.frame.tag, open.thread, open.task, local & ~(1 << 63))
        }
        var frame = Frame(site: site, start: record.time, spanId: spanId, parentSpanId: parent?.spanId ?? 0,
                          depth: parent.map { $0.depth + 1 } ?? 0, outermost: true, parentThread: parent?.thread ?? -1,
                          parentToken: parent?.token ?? 0)
        frame.task = task
        frame.startsTask = task != 0 && parent != nil && parent?.task != task
        frame.isSpan = true
        var call = event(frame, thread: thread)
        call.isAsync = true
        frame.tag = visitor.enter(call, parentTag: parent?.tag ?? -1)
        openAsync[token] = AsyncFrame(frame: frame, thread: thread, task: task, syncParent: syncParent)
        if depth > 0 || task == 0 {
            state.spans.append(ThreadSpan(depth: depth, token: token))
        } else {
            taskStacks[task, default: []].append(token)
        }
    }

    mutating func asyncExit<V: CallVisitor>(_ record: TraceRecord, token: UInt64, task: UInt64, thread: Int32, _ visitor: inout V) {
        guard let open = openAsync.removeValue(forKey: token) else { return }  // its entry was cut
        endAsync(open, token: token, at: record.time, exitThread: thread, unfinished: false, &visitor)
    }

    mutating func endAsync<V: CallVisitor>(_ open: AsyncFrame, token: UInt64, at time: UInt64, exitThread: Int32,
                                           unfinished: Bool, _ visitor: inout V) {
        if var stack = taskStacks[open.task] {
            if stack.last == token { stack.removeLast() } else { stack.removeAll { $0 == token } }
            taskStacks[open.task] = stack.isEmpty ? nil : stack
        }
        let end = max(time, open.frame.start)
        if open.frame.parentToken != 0 {
            openAsync[open.frame.parentToken]?.frame.childTicks &+= end - open.frame.start
        } else if open.syncParent >= 0 {
            let stack = threads[Int(open.thread)].stack
            if open.syncParent < stack.count, stack[open.syncParent].spanId == open.frame.parentSpanId {
                threads[Int(open.thread)].stack[open.syncParent].childTicks &+= end - open.frame.start
            }
        }
        if open.frame.isSpan { threads[Int(open.thread)].spans.removeAll { $0.token == token } }
        rememberEnded(token, spanId: open.frame.spanId, depth: open.frame.depth)
        var call = event(open.frame, thread: open.thread)
        call.isAsync = true
        call.end = end
        call.exitThread = exitThread
        call.unfinished = unfinished
        visitor.exit(call, tag: open.frame.tag)
        if open.frame.isSpan { process.spanDetails.removeValue(forKey: open.frame.spanId) }
    }

    mutating func rememberEnded(_ token: UInt64, spanId: UInt64, depth: Int32) {
        if endedOrder.count < Self.endedLimit {
            endedOrder.append(token)
        } else {
            endedAsync.removeValue(forKey: endedOrder[endedNext])
            endedOrder[endedNext] = token
            endedNext = (endedNext + 1) % Self.endedLimit
        }
        endedAsync[token] = (spanId, depth)
    }

    /// Calls still open when the trace ends: they end at the last record's time, marked unfinished.
    mutating func finishOpenCalls<V: CallVisitor>(_ visitor: inout V) {
        let end = process.lastTicks
        for index in threads.indices {
            while !threads[index].stack.isEmpty { endFrame(thread: Int32(index), at: end, unfinished: true, state: threads[index], &visitor) }
        }
        for (token, open) in openAsync.sorted(by: { $0.value.frame.depth > $1.value.frame.depth }) {
            openAsync.removeValue(forKey: token)
            endAsync(open, token: token, at: end, exitThread: open.thread, unfinished: true, &visitor)
        }
    }

    @inline(__always) func event(_ frame: Frame, thread: Int32) -> CallEvent {
        var call = CallEvent(site: frame.site, thread: thread, start: frame.start, spanId: frame.spanId,
                             parentSpanId: frame.parentSpanId, depth: frame.depth)
        call.childTicks = frame.childTicks
        call.outermost = frame.outermost
        call.parentThread = frame.parentThread
        call.task = frame.task
        call.startsTask = frame.startsTask
        call.isSpan = frame.isSpan
        return call
    }
}
