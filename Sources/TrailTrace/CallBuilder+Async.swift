import TrailFormat

/// Async calls and tracer spans, which may end on another thread, by token; calls still open at the end of the
/// trace (CallBuilder).
extension CallBuilder {
    mutating func asyncEnter<V: CallVisitor>(
        _ record: TraceRecord, token: UInt64, task: UInt64, parentToken: UInt64,
        position: UInt64, thread: Int32, _ visitor: inout V
    ) {
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
            frame = Frame(
                site: site, start: record.time, spanId: 1 << 63 | token, parentSpanId: parent.spanId,
                depth: parent.depth + 1, outermost: true,
                parentThread: parent.thread, parentToken: parent.token)
            parentTag = parent.tag
        } else if let top = threads[Int(thread)].stack.last {
            frame = Frame(
                site: site, start: record.time, spanId: 1 << 63 | token, parentSpanId: top.spanId,
                depth: top.depth + 1, outermost: true, parentThread: thread, parentToken: 0)
            parentTag = top.tag
            parentTask = top.task
        } else {
            frame = Frame(
                site: site, start: record.time, spanId: 1 << 63 | token, parentSpanId: 0, depth: 0,
                outermost: true, parentToken: 0)
        }
        frame.task = task
        frame.startsTask = task != 0 && parentTask != task
        var call = event(frame, thread: thread)
        call.isAsync = true
        frame.tag = visitor.enter(call, parentTag: parentTag)
        openAsync[token] = AsyncFrame(frame: frame, thread: thread, task: task)
        taskStacks[task, default: []].append(token)
        let state = threads[Int(thread)]
        state.asyncArguments = (frame.spanId, state.stack.count)
    }

    /// A tracer span: the innermost call or span open where it started (on its thread inside a synchronous
    /// call, else in its task), else the span its context named; the calls made where it started, while it is
    /// open, hang under it (Docs/trace-format.md, "Tracer spans").
    mutating func spanEnter<V: CallVisitor>(
        _ record: TraceRecord, token: UInt64, task: UInt64, parentToken: UInt64,
        thread: Int32, _ visitor: inout V
    ) {
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
        if parent == nil, let local = process.spanDetails[spanId]?.localParent, let open = openAsync[local & ~(1 << 63)]
        {
            parent = (open.frame.spanId, open.frame.depth, open.frame.tag, open.thread, open.task, local & ~(1 << 63))
        }
        var frame = Frame(
            site: site, start: record.time, spanId: spanId, parentSpanId: parent?.spanId ?? 0,
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

    mutating func asyncExit<V: CallVisitor>(
        _ record: TraceRecord, token: UInt64, task: UInt64, thread: Int32, exitAt position: UInt64,
        _ visitor: inout V
    ) {
        guard let open = openAsync.removeValue(forKey: token) else { return }  // its entry was cut
        if threads[Int(thread)].lastResult != nil {
            takeResult(spanId: open.frame.spanId, exitAt: position, state: threads[Int(thread)])
        }
        endAsync(open, token: token, at: record.time, exitThread: thread, unfinished: false, &visitor)
    }

    mutating func endAsync<V: CallVisitor>(
        _ open: AsyncFrame, token: UInt64, at time: UInt64, exitThread: Int32,
        unfinished: Bool, _ visitor: inout V
    ) {
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
        if !process.callValues.isEmpty { process.callValues[open.frame.spanId] = nil }
        if threads[Int(open.thread)].asyncArguments?.spanId == open.frame.spanId {
            threads[Int(open.thread)].asyncArguments = nil
        }
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
            while !threads[index].stack.isEmpty {
                endFrame(thread: Int32(index), at: end, unfinished: true, state: threads[index], &visitor)
            }
        }
        for (token, open) in openAsync.sorted(by: { $0.value.frame.depth > $1.value.frame.depth }) {
            openAsync.removeValue(forKey: token)
            endAsync(open, token: token, at: end, exitThread: open.thread, unfinished: true, &visitor)
        }
    }

    @inline(__always) func event(_ frame: Frame, thread: Int32) -> CallEvent {
        var call = CallEvent(
            site: frame.site, thread: thread, start: frame.start, spanId: frame.spanId,
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
