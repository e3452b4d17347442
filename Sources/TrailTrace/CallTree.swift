import TrailFormat

/// The calls of a trace as a tree: synchronous calls nest by thread, async calls by task, and a task's
/// synchronous calls hang under its innermost async call, whichever thread ran them.
public struct CallTree: Sendable {
    public struct Site: Sendable, Hashable {
        public var name: String
        /// `Module/File.swift:12`, or empty when the site string has none.
        public var location: String
    }

    public struct Thread: Sendable {
        public var tid: UInt32
        public var name: String
        public var dropped: UInt64
    }

    public struct Call: Sendable {
        public var site: Int
        public var thread: Int
        /// Nanoseconds since the trace started.
        public var start: Double
        /// Nil when the call never returned in the trace (still running, or the process died).
        public var end: Double?
        public var parent: Int?
        public var children: [Int] = []
        public var isAsync = false
        /// The thread it returned on, when that is not the one it started on.
        public var exitThread: Int?
        public var depth = 0

        public var duration: Double? { end.map { $0 - start } }
    }

    public var sites: [Site] = []
    public var threads: [Thread] = []
    public var calls: [Call] = []
    public var roots: [Int] = []
    /// The last timestamp seen, for calls that never returned.
    public var endTime: Double = 0
    public var dropped: UInt64 = 0
    public var complete: Bool
    public var truncated: Bool

    private struct Event {
        var time: Double
        var thread: Int
        var order: Int
        var kind: TraceRecord.Kind
        var address: UInt64
        var depth: Int
        var token: UInt64 = 0
        var task: UInt64 = 0
    }

    public init(_ trace: TraceFile) {
        complete = trace.complete
        truncated = trace.truncated
        dropped = trace.droppedTotal
        var siteIndex: [UInt64: Int] = [:]
        var siteByString: [String: Int] = [:]
        func site(_ address: UInt64) -> Int {
            if let index = siteIndex[address] { return index }
            let text = trace.names[address] ?? String(format: "0x%llx", address)
            let index: Int
            if let existing = siteByString[text] {
                index = existing
            } else {
                index = sites.count
                siteByString[text] = index
                sites.append(Self.parseSite(text))
            }
            siteIndex[address] = index
            return index
        }

        // Flatten each thread's records into events (AUX folded into the record before it), then merge by time.
        var events: [Event] = []
        let slots = trace.threads.keys.sorted()
        for slot in slots {
            let source = trace.threads[slot]!
            let index = threads.count
            threads.append(Thread(tid: source.tid, name: source.name, dropped: source.dropped))
            let records = source.records
            var position = 0
            while position < records.count {
                let record = records[position]
                position += 1
                guard let kind = record.kind, kind != .aux else { continue }
                var event = Event(time: trace.nanoseconds(record.time), thread: index, order: events.count, kind: kind,
                                  address: record.address, depth: record.depth)
                if kind == .asyncEnter || kind == .asyncExit, position < records.count,
                   records[position].kind == .aux {
                    event.token = records[position].time
                    event.task = records[position].address
                    position += 1
                }
                events.append(event)
            }
        }
        events.sort { $0.time != $1.time ? $0.time < $1.time : $0.order < $1.order }

        var stacks = Array(repeating: [Int](), count: threads.count)
        var pendingTask = Array(repeating: UInt64(0), count: threads.count)
        var taskStacks: [UInt64: [Int]] = [:]
        var byToken: [UInt64: Int] = [:]

        func open(_ call: Call) -> Int {
            let index = calls.count
            calls.append(call)
            if let parent = call.parent { calls[parent].children.append(index) } else { roots.append(index) }
            return index
        }

        for event in events {
            endTime = max(endTime, event.time)
            let thread = event.thread
            switch event.kind {
            case .enter:
                // Deeper open calls whose exits were lost (dropped records) end here.
                while stacks[thread].count > event.depth, let lost = stacks[thread].popLast() {
                    _ = lost
                }
                var parent = stacks[thread].last
                if parent == nil, pendingTask[thread] != 0 { parent = taskStacks[pendingTask[thread]]?.last }
                let index = open(Call(site: site(event.address), thread: thread, start: event.time, parent: parent))
                stacks[thread].append(index)
            case .exit:
                let target = site(event.address)
                if let position = stacks[thread].lastIndex(where: { calls[$0].site == target }) {
                    calls[stacks[thread][position]].end = event.time
                    stacks[thread].removeSubrange(position...)
                }
                if stacks[thread].isEmpty { pendingTask[thread] = 0 }
            case .task:
                pendingTask[thread] = event.address
            case .asyncEnter:
                var call = Call(site: site(event.address), thread: thread, start: event.time,
                                parent: taskStacks[event.task]?.last ?? stacks[thread].last)
                call.isAsync = true
                let index = open(call)
                taskStacks[event.task, default: []].append(index)
                byToken[event.token] = index
            case .asyncExit:
                guard let index = byToken.removeValue(forKey: event.token) else { continue }
                calls[index].end = event.time
                if calls[index].thread != thread { calls[index].exitThread = thread }
                if taskStacks[event.task]?.contains(index) == true {
                    taskStacks[event.task]!.removeAll { $0 == index }
                } else {
                    for key in taskStacks.keys where taskStacks[key]!.contains(index) { taskStacks[key]!.removeAll { $0 == index } }
                }
            case .dropped, .aux:
                continue
            }
        }
        for root in roots { assignDepth(root, 0) }
    }

    private mutating func assignDepth(_ root: Int, _ depth: Int) {
        var pending = [(root, depth)]
        while let (index, level) = pending.popLast() {
            calls[index].depth = level
            for child in calls[index].children.reversed() { pending.append((child, level + 1)) }
        }
    }

    /// "Name @ File.swift:12" -> name and location; the split is at the last " @ ".
    static func parseSite(_ text: String) -> Site {
        guard let range = text.range(of: " @ ", options: .backwards) else { return Site(name: text, location: "") }
        return Site(name: String(text[..<range.lowerBound]), location: String(text[range.upperBound...]))
    }

    /// Calls in display order: each root, then its subtree depth-first, roots by start time.
    public func walk(_ visit: (Int) -> Void) {
        var pending = roots.reversed().map { $0 }
        while let index = pending.popLast() {
            visit(index)
            pending.append(contentsOf: calls[index].children.reversed())
        }
    }
}
