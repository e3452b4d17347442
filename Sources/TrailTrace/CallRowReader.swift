import Foundation
import TrailFormat

/// Reads traces into `CallRows` a few blocks at a time, for a viewer that shows the calls while they are read
/// (`trail tui`): after each slice it hands on what the slice added and learns whether to go on. The first
/// `limit` calls become rows; every call counts in the profile. A child process's calls hang under the call that
/// started it (`ProcessTree`), as `trail replay` prints them. Used on one thread: only what it hands on leaves it.
public final class CallRowReader {
    let files: [TraceFile]
    let limit: Int
    let stream = CallStream()
    let tree: ProcessTree
    let totalBytes: Int
    /// Blocks read between two slices.
    public var blocksPerSlice = 2
    private let handOn: (CallRows) -> Bool
    private var sitesSent = 0
    /// Bytes of the files read to their end.
    private var bytesDone = 0
    private var stopped = false
    private var lastSnapshot = Date.distantPast
    /// How deep in child processes the reading is: their profiles join the parent's at their end.
    private var nesting = 0

    /// `handOn` gets each slice's rows and says whether to go on.
    public init(_ files: [TraceFile], limit: Int, handOn: @escaping (CallRows) -> Bool) {
        self.files = files
        self.limit = limit
        self.handOn = handOn
        tree = ProcessTree(files)
        totalBytes = files.reduce(0) { $0 + $1.fileSize }
    }

    /// Reads every file (a child process within the call that started it) until the end, or until `handOn`
    /// says stop.
    public func read() {
        var feed = RowFeed(reader: self, rootParent: -1, limit: limit)
        for file in files where !tree.isNested(file) {
            guard read(file, into: &feed) else { return }
        }
        var last = CallRows()
        last.finished = true
        _ = handOn(slice(&feed.output, profile: feed.profile.snapshot(open: nil), bytes: 0, last: &last))
    }

    /// One file, a slice at a time; false when told to stop (its open calls are then not ended).
    func read(_ file: TraceFile, into feed: inout RowFeed) -> Bool {
        var reader = TraceReader(process: TraceProcess(file: file, sites: stream.sites))
        feed.beginProcess(reader.builder.process)
        let chunks = file.chunks()
        let finished = withExtendedLifetime(chunks) { () -> Bool in
            var end = 0
            repeat {
                end = min(file.blockCount, end + blocksPerSlice)
                chunks.end = end
                reader.walk(chunks, &feed)
                let bytes = min(file.fileSize, end * file.header.blockSize)
                // The profile only now and then: its snapshot costs a pass over the functions.
                var snapshot: ProfileSnapshot?
                if nesting == 0, Date().timeIntervalSince(lastSnapshot) > 0.2 {
                    snapshot = feed.profile.snapshot(open: reader.builder.process)
                    lastSnapshot = Date()
                }
                var rows = CallRows()
                if stopped || !handOn(slice(&feed.output, profile: snapshot, bytes: bytes, last: &rows)) {
                    stopped = true
                    return false
                }
            } while end < file.blockCount
            reader.builder.release(upTo: .max, &feed)
            return true
        }
        guard finished else { return false }
        reader.note(chunks)
        reader.builder.finish(&feed)
        bytesDone += file.fileSize
        return true
    }

    /// A child process, read where its parent's reading stands, its rows under `row` (the parent's call).
    func readChild(_ file: TraceFile, of parent: inout RowFeed, under row: Int32) {
        let start = Double(Int64(bitPattern: file.startWallNanoseconds &- parent.process!.file.startWallNanoseconds))
        let processRow = parent.output.add(
            CallRows.Row(site: -1, tid: file.pid, parent: row, start: start, marks: .process), skipping: false)
        if processRow >= 0 {
            parent.output.changes.append(.name(row: processRow, "process \(file.pid) \(file.executableName)"))
        }
        var child = RowFeed(reader: self, rootParent: processRow, limit: limit)
        swap(&child.output, &parent.output)
        nesting += 1
        let finished = read(file, into: &child)
        nesting -= 1
        swap(&child.output, &parent.output)
        parent.profile.add(ended: child.profile)
        if finished, processRow >= 0, let process = child.lastProcess {
            parent.output.changes.append(
                .end(
                    row: processRow, duration: process.file.nanoseconds(process.lastTicks), selfTime: 0,
                    unfinished: false))
        }
    }

    /// What a slice added, taken out of `output`.
    private func slice(
        _ output: inout RowOutput, profile: ProfileSnapshot?, bytes: Int, last rows: inout CallRows
    ) -> CallRows {
        let sites = stream.sites.sites
        rows.sites = Array(sites[sitesSent...])
        sitesSent = sites.count
        rows.changes = output.changes
        output.changes = []
        output.changes.reserveCapacity(rows.changes.count)
        rows.bytesRead = bytesDone + bytes
        rows.totalBytes = totalBytes
        rows.skipped = output.skipped
        rows.profile = profile
        return rows
    }
}

/// The rows made so far and not yet handed on, and how many there are: one for a reading and the child
/// processes read inside it.
struct RowOutput {
    var changes: [CallRows.Change] = []
    var rows: Int32 = 0
    var skipped = 0
    let limit: Int

    /// A new row's number, or -1 past the limit (then counted as skipped unless `skipping` is false).
    mutating func add(_ row: CallRows.Row, skipping: Bool = true) -> Int32 {
        guard Int(rows) < limit else {
            if skipping { skipped += 1 }
            return -1
        }
        changes.append(.row(row))
        rows += 1
        return rows - 1
    }
}

/// The visitor behind `CallRowReader`, one per process being read.
struct RowFeed: CallVisitor {
    struct TaskKey: Hashable {
        var task: UInt64
        var creator: UInt64
    }

    unowned let reader: CallRowReader
    var output: RowOutput
    var profile = Profile()
    var process: TraceProcess?
    /// The process read last, after its end.
    var lastProcess: TraceProcess?
    /// Where the process's roots hang: a child process's row, else nowhere (-1).
    let rootParent: Int32
    var salt: UInt64 = 0
    var tasks: [TaskKey: UInt32] = [:]
    var threadsSeen: [Bool] = []

    init(reader: CallRowReader, rootParent: Int32, limit: Int) {
        self.reader = reader
        self.rootParent = rootParent
        output = RowOutput(limit: limit)
    }

    mutating func beginProcess(_ process: TraceProcess) {
        self.process = process
        profile.beginProcess(process)
        salt = ProcessTree.salt(of: process.file)
        tasks.removeAll()
        threadsSeen.removeAll()
    }

    mutating func enter(_ call: CallEvent, parentTag: Int32) -> Int32 {
        guard let process, Int(output.rows) < output.limit else {
            output.skipped += 1
            return -1
        }
        var marks: CallRows.Marks = []
        if call.isSpan {
            marks.insert(process.spanDetails[call.spanId]?.kind == .context ? .context : .span)
        } else if call.isAsync {
            marks.insert(.async)
        }
        // A task is numbered where it starts: under its creator, or at its first root call.
        var task: UInt32 = 0
        let key = TaskKey(task: call.task, creator: call.parentSpanId)
        if call.startsTask, call.parentSpanId != 0 || tasks[key] == nil {
            task = tasks[key] ?? UInt32(tasks.count + 1)
            tasks[key] = task
            if call.parentSpanId != 0 { marks.insert(.childTask) }
        }
        let thread = Int(call.thread)
        if thread >= threadsSeen.count { threadsSeen += repeatElement(false, count: thread + 1 - threadsSeen.count) }
        let threadStarts = !threadsSeen[thread] && thread > 0
        threadsSeen[thread] = true
        if threadStarts { marks.insert(.threadStart) }
        let row = output.add(
            CallRows.Row(
                site: call.site, tid: process.threads[thread].tid, parent: parentTag >= 0 ? parentTag : rootParent,
                start: process.nanoseconds(call.start), marks: marks, task: task))
        if threadStarts, row >= 0 {
            let name = process.threads[thread].name
            output.changes.append(.thread(row: row, name.isEmpty ? String(process.threads[thread].tid) : name))
        }
        return row
    }

    mutating func exit(_ call: CallEvent, tag: Int32) {
        profile.exit(call, tag: -1)
        guard let process else { return }
        if !reader.tree.isEmpty {
            for child in reader.tree.claimChildren(of: SpanIDMath.exported(call.spanId, salt: salt)) {
                reader.readChild(child, of: &self, under: tag)
            }
        }
        guard tag >= 0 else { return }
        let selfTicks = call.duration > call.childTicks ? call.duration - call.childTicks : 0
        output.changes.append(
            .end(
                row: tag, duration: process.nanoseconds(duration: call.duration),
                selfTime: process.nanoseconds(duration: selfTicks), unfinished: call.unfinished))
        if call.isSpan, case let name = process.name(call), name != process.sites[call.site].name {
            output.changes.append(.name(row: tag, name))
        }
        if !process.callValues.isEmpty, let values = process.callValues[call.spanId] {
            let shown = CallValue.callName(process.name(call), values) + CallValue.outcome(values)
            output.changes.append(.values(row: tag, shown))
        }
    }

    mutating func endProcess(_ process: TraceProcess) {
        profile.endProcess(process)
        lastProcess = process
        self.process = nil
    }
}
