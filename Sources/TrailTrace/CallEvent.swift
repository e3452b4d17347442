import TrailFormat

/// A call as the stream reports it: at its start (`enter`, with `end` still 0) and at its end (`exit`).
/// Times are clock ticks of the call's process; `TraceProcess` converts them.
public struct CallEvent: Sendable {
    /// Index into `SiteTable.sites`, shared by every process of a run.
    public var site: Int32
    /// Index into the process's `threads`.
    public var thread: Int32
    public var start: UInt64
    public var end: UInt64 = 0
    /// Docs/trace-format.md, "Span and trace ids".
    public var spanId: UInt64
    /// 0 for a root.
    public var parentSpanId: UInt64
    /// Nesting below the root of its tree, across threads and tasks.
    public var depth: Int32
    public var isAsync = false
    /// A tracer span (TrailTracing): its details are `TraceProcess.spanDetails[spanId]` until its exit.
    public var isSpan = false
    /// The thread an async call returned on.
    public var exitThread: Int32 = -1
    /// Ticks spent in the calls it made directly (known at exit).
    public var childTicks: UInt64 = 0
    /// No call of the same function encloses it (recursion counts once in totals).
    public var outermost = true
    /// It never returned in the trace (the process died, or the size limit cut its exit).
    public var unfinished = false
    /// The thread its parent started on; -1 for a root or a parent that already ended.
    public var parentThread: Int32 = -1
    /// The task it runs in (the runtime's task address; 0 outside tasks), and whether it is the first call
    /// of that task: a child task's (under its creator) or a detached or top-level task's (a root).
    public var task: UInt64 = 0
    public var startsTask = false

    public var duration: UInt64 { end &- start }
}

/// What a viewer does with the calls of one or more processes, in one pass. `enter` returns a tag the stream
/// keeps with the open call (a flame-graph node, a pending replay line) and hands back at `exit` and to the
/// call's children; -1 means none.
public protocol CallVisitor {
    mutating func beginProcess(_ process: TraceProcess)
    mutating func enter(_ call: CallEvent, parentTag: Int32) -> Int32
    mutating func exit(_ call: CallEvent, tag: Int32)
    mutating func endProcess(_ process: TraceProcess)
}

extension CallVisitor {
    public mutating func beginProcess(_ process: TraceProcess) {}
    public mutating func enter(_ call: CallEvent, parentTag: Int32) -> Int32 { -1 }
    public mutating func endProcess(_ process: TraceProcess) {}
}
