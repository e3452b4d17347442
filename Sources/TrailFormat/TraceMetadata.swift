/// What a trace says about its process rather than its calls: INFO, names, the clock's rate, END and CUT. The one
/// place those chunks are absorbed, by a file's open-time scans and by the reading pass alike, whether the file is
/// finished or still being written.
public struct TraceMetadata: Sendable {
    public let header: TraceHeader
    public private(set) var info: [String: String] = [:]
    /// Site address -> "Module.Type.f(x:) @ File.swift:12" (`SiteName`); a name never changes within a file, so
    /// the first one read stands.
    public private(set) var names: [UInt64: String] = [:]
    /// Nanoseconds per clock tick: from the header's sample to the latest CLOCK sample read (1 for a monotonic
    /// clock, or until a cycle counter's first sample).
    public private(set) var nanosecondsPerTick = 1.0
    private var clockTicks: UInt64 = 0
    /// The END chunk was read: the process stopped tracing cleanly.
    public private(set) var complete = false
    /// Records the writer dropped, from END.
    public private(set) var endDropped: UInt64 = 0
    /// Records the writer wrote, from END (0 without one).
    public private(set) var endRecords: UInt64 = 0
    /// The totals of what the size limit cut: the largest CUT chunk, which is the last one written.
    public private(set) var cut: TraceChunks.Cut?
    /// A RECORDS chunk with records in it was read.
    public private(set) var hasRecords = false

    public init(header: TraceHeader) { self.header = header }

    /// Takes what `chunk` says of the process; any other chunk is left to the call reader.
    public mutating func absorb(_ chunk: TraceChunk) {
        switch chunk {
        case .info(let lines):
            for (key, value) in lines.entries { info[key] = value }
        case .name(let name):
            if names[name.site] == nil { names[name.site] = name.text }
        case .clock(let clock):
            // A cycle counter's rate, from the header's sample to the latest one: a finished file's last sample
            // is read at open, and the earlier ones met by the pass leave it.
            guard header.clockKind == TraceLayout.Clock.cycles.rawValue, clock.ticks > clockTicks,
                clock.ticks > header.ticks, clock.nanoseconds > header.monotonicNanoseconds
            else { return }
            clockTicks = clock.ticks
            nanosecondsPerTick =
                Double(clock.nanoseconds - header.monotonicNanoseconds) / Double(clock.ticks - header.ticks)
        case .end(let end):
            complete = true
            endDropped = end.dropped
            endRecords = end.records
        case .cut(let chunk):
            if chunk.records >= cut?.records ?? 0 { cut = chunk }
        case .records(let records, _):
            if records.count > 0 { hasRecords = true }
        case .thread, .watermark, .span, .unknown: break
        }
    }
}
