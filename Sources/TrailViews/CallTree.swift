import TrailTrace

/// The calls `trail tui` shows, kept as a compact tree: a call is one fixed-size entry with its parent, first
/// child and next sibling, so a tree of millions of calls is tens of megabytes. Past `limit` calls the rest of
/// the trace is still read (the report and graph modes count every call) but not kept as rows: the reader gives
/// no way to come back to a place in the file, which showing every call of a 10 GB trace within bounded memory
/// would need (Docs/viewers.md).
public struct CallTree: CallVisitor {
    public struct Call: Sendable {
        public var site: Int32
        public var process: Int32
        public var thread: Int32
        public var parent: Int32
        public var firstChild: Int32 = -1
        public var lastChild: Int32 = -1
        public var next: Int32 = -1
        public var depth: Int32
        /// Nanoseconds since its process started recording, and its total and self time.
        public var start: Double
        public var duration: Double = 0
        public var selfTime: Double = 0
        public var isAsync: Bool
        public var isSpan = false
        public var unfinished = false
    }

    public private(set) var calls: [Call] = []
    public private(set) var roots: [Int32] = []
    /// Per process read: its pid and its threads' tids.
    public private(set) var processes: [(pid: UInt32, tids: [UInt32])] = []
    /// Every call's site's name and location; site indexes are the reading's `SiteTable`'s.
    public private(set) var sites: SiteTable?
    /// Calls read but not kept (past `limit`).
    public private(set) var skipped = 0
    /// Every call, for the report mode.
    public private(set) var profile = Profile()
    let limit: Int
    private var lastRoot: Int32 = -1
    private var process: TraceProcess?

    public init(limit: Int = 2_000_000) {
        self.limit = limit
    }

    public func name(_ index: Int32) -> String { sites?[calls[Int(index)].site].name ?? "?" }
    public func location(_ index: Int32) -> String { sites?[calls[Int(index)].site].location ?? "" }

    public mutating func beginProcess(_ process: TraceProcess) {
        self.process = process
        sites = process.sites
        processes.append((process.pid, []))
        profile.beginProcess(process)
    }

    public mutating func enter(_ call: CallEvent, parentTag: Int32) -> Int32 {
        guard let process, calls.count < limit else {
            skipped += 1
            return -1
        }
        let index = Int32(calls.count)
        let parent = parentTag >= 0 && Int(parentTag) < calls.count ? parentTag : -1
        calls.append(
            Call(
                site: call.site, process: Int32(processes.count - 1), thread: call.thread, parent: parent,
                depth: parent >= 0 ? calls[Int(parent)].depth + 1 : 0, start: process.nanoseconds(call.start),
                isAsync: call.isAsync, isSpan: call.isSpan))
        if parent >= 0 {
            if calls[Int(parent)].lastChild >= 0 {
                calls[Int(calls[Int(parent)].lastChild)].next = index
            } else {
                calls[Int(parent)].firstChild = index
            }
            calls[Int(parent)].lastChild = index
        } else {
            if lastRoot >= 0 { calls[Int(lastRoot)].next = index }
            roots.append(index)
            lastRoot = index
        }
        return index
    }

    public mutating func exit(_ call: CallEvent, tag: Int32) {
        profile.exit(call, tag: -1)
        guard let process, tag >= 0, Int(tag) < calls.count else { return }
        calls[Int(tag)].duration = process.nanoseconds(duration: call.duration)
        calls[Int(tag)].selfTime = process.nanoseconds(
            duration: call.duration > call.childTicks ? call.duration - call.childTicks : 0)
        calls[Int(tag)].unfinished = call.unfinished
    }

    public mutating func endProcess(_ process: TraceProcess) {
        processes[processes.count - 1].tids = process.threads.map(\.tid)
        profile.endProcess(process)
        self.process = nil
    }

    /// The thread id a call ran on.
    public func tid(_ index: Int32) -> UInt32 {
        let call = calls[Int(index)]
        let tids = processes[Int(call.process)].tids
        return Int(call.thread) < tids.count ? tids[Int(call.thread)] : 0
    }
}
