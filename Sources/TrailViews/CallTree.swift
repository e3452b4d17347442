import TrailTrace

/// The calls `trail tui` shows, kept as a compact tree: a call is one fixed-size entry with its parent, first
/// child and next sibling, so a tree of millions of calls is tens of megabytes. It grows as `CallRows` come from
/// the reading (`CallRowReader`, on another thread); past the reader's limit the rest of the trace counts in the
/// profile (the report mode) but is not kept as rows, which keeps memory bounded on a trace of any size
/// (Docs/viewers.md).
public struct CallTree {
    public struct Call: Sendable {
        public var site: Int32
        public var tid: UInt32
        public var parent: Int32
        public var firstChild: Int32 = -1
        public var lastChild: Int32 = -1
        public var next: Int32 = -1
        public var depth: Int32
        public var task: UInt32
        /// Nanoseconds since its process started recording, and its total and self time (0 until it ends).
        public var start: Double
        public var duration: Double = 0
        public var selfTime: Double = 0
        public var marks: CallRows.Marks
        /// Its end was read: until then the reading has not got there.
        public var ended = false
        public var unfinished = false
        public var isAsync: Bool { marks.contains(.async) }
        public var isSpan: Bool { marks.contains(.span) }
    }

    public private(set) var calls: [Call] = []
    public private(set) var roots: [Int32] = []
    /// Every site's name and location, by the reading's site index.
    public private(set) var sites: [Site] = []
    /// Names other than their site's: renamed spans, child processes; and the thread a row's call began.
    public private(set) var names: [Int32: String] = [:]
    public private(set) var threadNames: [Int32: String] = [:]
    /// A call's name with its arguments and result, in a build with values (`shownName`); its name (`name`) is
    /// what the graph and the filters match.
    public private(set) var valueNames: [Int32: String] = [:]
    /// Calls read but not kept (past the reader's limit).
    public private(set) var skipped = 0
    /// Every call read so far, by function, for the report mode.
    public private(set) var profile = ProfileSnapshot()
    public private(set) var bytesRead = 0
    public private(set) var totalBytes = 0
    /// Everything is read: durations, the profile and the graph are final.
    public private(set) var finished = false
    private var lastRoot: Int32 = -1

    public init() {}

    /// Room for `count` calls.
    public mutating func reserve(_ count: Int) { calls.reserveCapacity(count) }

    /// The calls of `files`, read here to the end (tests, and whoever wants the whole tree at once).
    public static func read(_ files: [TraceFile], limit: Int = 2_000_000) -> CallTree {
        var tree = CallTree()
        CallRowReader(files, limit: limit) { rows in
            tree.apply(rows)
            return true
        }.read()
        return tree
    }

    public func name(_ index: Int32) -> String {
        if let name = names[index] { return name }
        let site = calls[Int(index)].site
        return site >= 0 && Int(site) < sites.count ? sites[Int(site)].name : "?"
    }

    /// What the call tree shows and searches: with the values it was called with and gave back, when recorded.
    public func shownName(_ index: Int32) -> String { valueNames[index] ?? name(index) }

    public func location(_ index: Int32) -> String {
        let site = calls[Int(index)].site
        return site >= 0 && Int(site) < sites.count ? sites[Int(site)].location : ""
    }

    public func tid(_ index: Int32) -> UInt32 { calls[Int(index)].tid }

    /// Takes what a slice of reading added; returns the first new row's index.
    @discardableResult
    public mutating func apply(_ rows: CallRows) -> Int {
        let firstNew = calls.count
        sites += rows.sites
        for change in rows.changes {
            switch change {
            case .row(let row): add(row)
            case .end(let row, let duration, let selfTime, let unfinished):
                guard row >= 0, Int(row) < calls.count else { continue }
                calls[Int(row)].duration = duration
                calls[Int(row)].selfTime = selfTime
                calls[Int(row)].unfinished = unfinished
                calls[Int(row)].ended = true
            case .name(let row, let name): names[row] = name
            case .thread(let row, let name): threadNames[row] = name
            case .values(let row, let name): valueNames[row] = name
            }
        }
        skipped = rows.skipped
        bytesRead = rows.bytesRead
        totalBytes = rows.totalBytes
        if let profile = rows.profile { self.profile = profile }
        if rows.finished { finished = true }
        return firstNew
    }

    private mutating func add(_ row: CallRows.Row) {
        let index = Int32(calls.count)
        let parent = row.parent >= 0 && row.parent < index ? row.parent : -1
        calls.append(
            Call(
                site: row.site, tid: row.tid, parent: parent, depth: parent >= 0 ? calls[Int(parent)].depth + 1 : 0,
                task: row.task, start: row.start, marks: row.marks))
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
    }
}
