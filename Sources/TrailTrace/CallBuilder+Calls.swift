import TrailFormat

/// Records into calls: a synchronous call's ENTER and EXIT on its thread's stack, and where a task's root call
/// hangs (CallBuilder).
extension CallBuilder {

    mutating func site(_ address: UInt64) -> Int32 {
        if let index = siteOf.find(address) { return index }
        let index = site(named: file.names[address] ?? "0x" + String(address, radix: 16))
        siteOf.insert(address, index)
        return index
    }

    /// The site of a site string, `sameName` kept up with the table.
    mutating func site(named text: String) -> Int32 {
        let index = process.sites.index(text)
        while sameName.count < process.sites.sameName.count { sameName.append(process.sites.sameName[sameName.count]) }
        return index
    }

    @inline(__always)
    mutating func handle<V: CallVisitor>(
        _ record: TraceRecord, position: UInt64, thread: Int32, state: ThreadState, _ visitor: inout V
    ) {
        if state.valueDataLeft > 0, takeValueData(record, state: state, position: position) { return }
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
            let enter = state.held
            let token = state.heldAux
            asyncEnter(
                enter, token: token.time, task: token.address, parentToken: record.kind == .aux ? record.time : 0,
                position: state.heldPosition, thread: thread, &visitor)
            if record.kind == .aux { return }
        case .asyncExitToken:
            state.awaiting = .nothing
            if record.kind == .aux {
                asyncExit(
                    state.held, token: record.time, task: record.address, thread: thread, exitAt: state.heldPosition,
                    &visitor)
                return
            }
        }
        switch record.kind {
        case .enter: enter(record, position: position, thread: thread, state: state, &visitor)
        case .exit: exit(record, position: position, thread: thread, state: state, &visitor)
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
            state.heldPosition = position
            state.awaiting = .asyncExitToken
        case .dropped:
            process.dropped += record.address
        case .aux:
            takeValue(record, state: state, position: position)
        case nil:
            break
        }
    }

    /// The call a new root call or async call hangs under: the task's innermost open async call, else the one
    /// its creator had open (possibly ended since), else none.
    mutating func parent(task: UInt64, parentToken: UInt64) -> (
        token: UInt64, spanId: UInt64, depth: Int32, tag: Int32, thread: Int32, task: UInt64
    )? {
        if task != 0, let token = taskStacks[task]?.last, let open = openAsync[token] {
            return (token, open.frame.spanId, open.frame.depth, open.frame.tag, open.thread, open.task)
        }
        guard parentToken != 0 else { return nil }
        if let open = openAsync[parentToken] {
            // A child task made while tracer spans are open above its creator's call in the creator's task
            // (an `async let` inside `withSpan`) hangs under the innermost of them.
            if let stack = taskStacks[open.task], let top = stack.last, top != parentToken, let span = openAsync[top],
                span.frame.isSpan
            {
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

    mutating func enter<V: CallVisitor>(
        _ record: TraceRecord, position: UInt64, thread: Int32, state: ThreadState, _ visitor: inout V
    ) {
        let depth = record.depth
        // Calls whose exits were lost (a gap) end here.
        while state.stack.count > depth, depth < Int(TraceRecord.depthMax) {
            endFrame(thread: thread, at: record.time, unfinished: true, state: state, &visitor)
        }
        let site = site(record.address)
        let name = Int(sameName[Int(site)])
        if state.open.count <= name {
            state.open.append(contentsOf: repeatElement(0, count: name + 1 - state.open.count))
        }
        let outermost = state.open[name] == 0
        state.open[name] += 1
        let spanId = UInt64(state.slot + 1) << 44 | (position & (1 << 44 - 1))
        var frame: Frame
        if let span = state.spans.last, span.depth == state.stack.count, state.stack.count > 0 || state.task == 0,
            let open = openAsync[span.token]
        {
            // Inside a tracer span that this thread opened at this depth.
            frame = Frame(
                site: site, start: record.time, spanId: spanId, parentSpanId: open.frame.spanId,
                depth: open.frame.depth + 1,
                outermost: outermost, parentThread: open.thread, parentToken: state.stack.isEmpty ? span.token : 0)
            frame.spanParent = state.stack.isEmpty ? 0 : span.token
            frame.task = state.stack.last?.task ?? state.task
            frame.tag = visitor.enter(event(frame, thread: thread), parentTag: open.frame.tag)
        } else if let top = state.stack.last {
            frame = Frame(
                site: site, start: record.time, spanId: spanId, parentSpanId: top.spanId, depth: top.depth + 1,
                outermost: outermost, parentThread: thread, parentToken: 0)
            frame.task = top.task
            frame.tag = visitor.enter(event(frame, thread: thread), parentTag: top.tag)
        } else {
            let parent = parent(task: state.task, parentToken: state.taskParent)
            frame = Frame(
                site: site, start: record.time, spanId: spanId, parentSpanId: parent?.spanId ?? 0,
                depth: parent.map { $0.depth + 1 } ?? 0, outermost: outermost,
                parentThread: parent?.thread ?? -1, parentToken: parent?.token ?? 0)
            frame.task = state.task
            frame.startsTask = state.task != 0 && parent?.task != state.task
            frame.tag = visitor.enter(event(frame, thread: thread), parentTag: parent?.tag ?? -1)
        }
        state.stack.append(frame)
    }

    mutating func exit<V: CallVisitor>(
        _ record: TraceRecord, position: UInt64 = .max, thread: Int32, state: ThreadState, _ visitor: inout V
    ) {
        guard !state.stack.isEmpty else {  // its entry was cut
            state.lastResult = nil
            return
        }
        // Deeper calls whose exits were lost end here too.
        while state.stack.count > record.depth + 1, record.depth < Int(TraceRecord.depthMax) {
            endFrame(thread: thread, at: record.time, unfinished: true, state: state, &visitor)
        }
        if state.lastResult != nil, let call = state.stack.last {
            takeResult(spanId: call.spanId, exitAt: position, state: state)
        }
        endFrame(thread: thread, at: record.time, unfinished: false, state: state, &visitor)
        if state.stack.isEmpty {
            state.task = 0
            state.taskParent = 0
        }
    }

    mutating func endFrame<V: CallVisitor>(
        thread: Int32, at time: UInt64, unfinished: Bool, state: ThreadState, _ visitor: inout V
    ) {
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
        if !process.callValues.isEmpty { process.callValues[frame.spanId] = nil }
    }
}
