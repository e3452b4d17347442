import Foundation
import TrailFormat
import TrailTrace

/// What one trace holds, as `trail info` prints it: the header and INFO chunk as they are, and what only a pass
/// over the calls can say (counts, threads, tasks, how long it ran). Gathered by `TraceSummary` below.
public struct TraceFacts: Sendable {
    public var path = ""
    public var info: [String: String] = [:]
    public var pid: UInt32 = 0
    public var formatVersion: UInt32 = 0
    public var startWallNanoseconds: UInt64 = 0
    /// From the start of recording to the last call's start or end.
    public var durationNanoseconds: Double = 0
    public var calls = 0
    public var asyncCalls = 0
    public var spans = 0
    public var unfinished = 0
    public var threads: [(tid: UInt32, name: String)] = []
    public var tasks = 0
    public var dropped: UInt64 = 0
    /// The records the writer wrote, from the END chunk; nil without one.
    public var records: UInt64?
    public var fileSize: UInt64 = 0
    /// The size limit in bytes (header and blocks); 0 when there is none.
    public var cap: UInt64 = 0
    public var policy: UInt32 = 0
    public var cutRecords: UInt64 = 0
    public var complete = false
    public var truncated = false
    public var wrapped = false

    /// Docs/trace-format.md, "Span and trace ids": wall-clock start, pid, FNV-1a of the host, big-endian.
    public var traceID: String {
        let host = SpanIDMath.fnv1a32(info["host"] ?? "")
        return hex(startWallNanoseconds, digits: 16) + hex(UInt64(pid), digits: 8) + hex(UInt64(host), digits: 8)
    }

    private func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}

/// Counts what `TraceFacts` needs from the calls, one process at a time.
public struct TraceSummary: CallVisitor {
    public private(set) var facts: [TraceFacts] = []
    private var current = TraceFacts()
    private var lastTicks: UInt64 = 0
    private var tasks = Set<UInt64>()

    public init() {}

    public mutating func beginProcess(_ process: TraceProcess) {
        let file = process.file
        current = TraceFacts()
        current.path = file.path
        current.info = file.info
        current.pid = file.pid
        current.formatVersion = file.header.version
        current.startWallNanoseconds = file.startWallNanoseconds
        current.fileSize = UInt64((try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0)
        current.cap =
            file.header.maxBlocks == 0
            ? 0 : UInt64(file.header.size) + file.header.maxBlocks * UInt64(file.header.blockSize)
        current.policy = file.header.policy
        current.wrapped = file.wrapped
        lastTicks = file.header.ticks
        tasks.removeAll(keepingCapacity: true)
    }

    public mutating func enter(_ call: CallEvent, parentTag: Int32) -> Int32 {
        current.calls += 1
        if call.isSpan { current.spans += 1 } else if call.isAsync { current.asyncCalls += 1 }
        if call.task != 0 { tasks.insert(call.task) }
        lastTicks = max(lastTicks, call.start)
        return -1
    }

    public mutating func exit(_ call: CallEvent, tag: Int32) {
        if call.unfinished { current.unfinished += 1 } else { lastTicks = max(lastTicks, call.end) }
    }

    public mutating func endProcess(_ process: TraceProcess) {
        let file = process.file
        current.durationNanoseconds = process.nanoseconds(max(lastTicks, process.lastTicks))
        current.threads = process.threads.map { ($0.tid, $0.name) }
        current.tasks = tasks.count
        current.dropped = process.dropped
        current.cutRecords = file.cut?.records ?? 0
        current.complete = file.complete
        current.records = file.complete ? file.endRecords : nil
        current.truncated = file.truncated
        facts.append(current)
    }
}
