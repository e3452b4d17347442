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

/// A function, once per name across every file read.
public struct Site: Sendable, Hashable {
    public var name: String
    /// `Module/File.swift:12`, or empty when the site string has none.
    public var location: String

    /// "Name @ File.swift:12" -> name and location; the split is at the last " @ ".
    public init(_ text: String) {
        if let range = text.range(of: " @ ", options: .backwards) {
            name = String(text[..<range.lowerBound])
            location = String(text[range.upperBound...])
        } else {
            name = text
            location = ""
        }
    }
}

/// Sites by index, shared by the processes of one reading so that totals merge by function.
public final class SiteTable {
    public private(set) var sites: [Site] = []
    /// Per site, the first site with its name: overloads that print alike (`f(_:)` taking an Int or a String)
    /// share one report row, so a call of one inside the other is not outermost for that row.
    private(set) var sameName: [Int32] = []
    private var byText: [String: Int32] = [:]
    private var byName: [String: Int32] = [:]

    public init() {}

    func index(_ text: String) -> Int32 {
        if let index = byText[text] { return index }
        let index = Int32(sites.count)
        let site = Site(text)
        sites.append(site)
        byText[text] = index
        sameName.append(byName[site.name] ?? index)
        if byName[site.name] == nil { byName[site.name] = index }
        return index
    }

    public subscript(index: Int32) -> Site { sites[Int(index)] }
}

/// One process being read: its file, its threads so far, and its clock.
public final class TraceProcess {
    public struct Thread: Sendable {
        public var slot: UInt32
        public var tid: UInt32
        public var name: String = ""
        public var dropped: UInt64 = 0
    }

    public let file: TraceFile
    public let sites: SiteTable
    public internal(set) var threads: [Thread] = []
    /// The last record's time, for calls that never returned.
    public internal(set) var lastTicks: UInt64 = 0
    /// Records the writer lost (buffers full) and records the reader could not place.
    public internal(set) var dropped: UInt64 = 0
    /// The details of the tracer spans open now (start and end merged), by span id; a viewer reads them at a
    /// span's enter and exit.
    public internal(set) var spanDetails: [UInt64: SpanDetails] = [:]

    init(file: TraceFile, sites: SiteTable) {
        self.file = file
        self.sites = sites
        lastTicks = file.header.ticks
    }

    public var pid: UInt32 { file.pid }

    /// A call's name: a tracer span's own (it may be renamed after it starts), else its site's.
    public func name(_ call: CallEvent) -> String {
        if call.isSpan, let name = spanDetails[call.spanId]?.name { return name }
        return sites[call.site].name
    }

    /// A tracer span's details as viewers print them, `{key=value, ...}` with its status, events, links and
    /// remote parent; empty for a call.
    public func spanSummary(_ call: CallEvent) -> String {
        guard call.isSpan, let details = spanDetails[call.spanId] else { return "" }
        var parts: [String] = []
        if let status = details.status {
            parts.append(
                (status.code == 2 ? "error" : status.code == 1 ? "ok" : "unset")
                    + (status.message.map { ": " + $0 } ?? ""))
        }
        // The code attributes say where it was opened, which the site already does.
        parts += details.attributes.filter { !$0.key.hasPrefix("code.") }.map { "\($0.key)=\($0.value)" }
        parts += details.events.map { event in
            "event " + event.name
                + (event.attributes.isEmpty
                    ? "" : "(" + event.attributes.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + ")")
        }
        if let remote = details.remoteParent {
            parts.append("remote parent " + Self.hex(remote.traceID) + "/" + Self.hex(remote.spanID))
        }
        parts += details.links.map { "link " + Self.hex($0.traceID) + "/" + Self.hex($0.spanID) }
        return parts.isEmpty ? "" : "{" + parts.joined(separator: ", ") + "}"
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Nanoseconds since this process started recording.
    @inlinable public func nanoseconds(_ ticks: UInt64) -> Double { file.nanoseconds(ticks) }
    /// Nanoseconds for a tick count.
    @inlinable public func nanoseconds(duration ticks: UInt64) -> Double { Double(ticks) * file.nanosecondsPerTick }
    /// Unix time in nanoseconds. The offset is added as an integer: a Double holds Unix nanoseconds only to the
    /// nearest 256, which made short spans last zero.
    public func wallNanoseconds(_ ticks: UInt64) -> UInt64 {
        let exact = file.nanoseconds(ticks).rounded()
        let offset = exact.isFinite ? Int64(max(-4e18, min(4e18, exact))) : 0
        let wall = Int64(bitPattern: file.startWallNanoseconds) &+ offset
        return wall < 0 ? 0 : UInt64(wall)
    }
}
