/// What a slice of reading adds to a viewer's call tree (`CallRowReader`): new rows, the ends of rows sent
/// before, and how far the reading got. Plain values, so that the thread that reads hands them to the one that
/// shows them.
public struct CallRows: Sendable {
    /// A call, or a child process, as a row; rows are numbered from 0 in the order they come.
    public struct Row: Sendable {
        /// Into the sites sent so far; -1 for a child process's row (named by a `.name` change).
        public var site: Int32
        /// Its thread's id; a child process's pid.
        public var tid: UInt32
        /// The row it hangs under; -1 for a root.
        public var parent: Int32
        /// Nanoseconds since its process started recording (a child process's row: since its parent's did).
        public var start: Double
        public var marks: Marks
        /// The task it starts, numbered per process in order of first appearance; 0 when it starts none.
        public var task: UInt32 = 0

        public init(site: Int32, tid: UInt32, parent: Int32, start: Double, marks: Marks, task: UInt32 = 0) {
            self.site = site
            self.tid = tid
            self.parent = parent
            self.start = start
            self.marks = marks
            self.task = task
        }
    }

    /// What a row's line says besides its name, as `trail replay` marks it.
    public struct Marks: OptionSet, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let async = Marks(rawValue: 1)
        public static let span = Marks(rawValue: 2)
        /// A tracer span that only carries a context (`[context]`).
        public static let context = Marks(rawValue: 4)
        /// Its task is a child task, under its creator (else a detached or top-level one).
        public static let childTask = Marks(rawValue: 8)
        /// The first call of a thread other than its process's first (named by a `.thread` change).
        public static let threadStart = Marks(rawValue: 16)
        public static let process = Marks(rawValue: 32)
    }

    public enum Change: Sendable {
        case row(Row)
        /// A row's call ended (or never did: `unfinished`, at the end of its trace).
        case end(row: Int32, duration: Double, selfTime: Double, unfinished: Bool)
        /// A name other than its site's: a span renamed after it started, a child process's `process PID EXE`.
        case name(row: Int32, String)
        /// The name of the thread a `threadStart` row began.
        case thread(row: Int32, String)
        /// What a call of a build with values showed, as replay shows it: `App.fib(n: 30) = 832040`.
        case values(row: Int32, String)
    }

    /// Sites new since the last slice, in index order, before the rows that use them.
    public var sites: [Site] = []
    public var changes: [Change] = []
    /// Bytes of the traces read so far, of `totalBytes`.
    public var bytesRead = 0
    public var totalBytes = 0
    /// Calls read but not kept as rows (past the limit); they are in the profile.
    public var skipped = 0
    /// Every call read so far, by function; nil when it did not change enough to send again.
    public var profile: ProfileSnapshot?
    /// The last slice: everything is read.
    public var finished = false

    public init() {}
}
