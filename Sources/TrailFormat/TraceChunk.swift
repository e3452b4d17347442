/// One chunk of a trace, decoded: the one place a chunk's type number is told apart (Docs/trace-format.md,
/// "Chunks"). Payloads stay where they lie (a RECORDS chunk's records, a SPAN's details, INFO's text are views
/// of the bytes read), so a chunk is read only while those bytes are.
///
/// To add a chunk kind: its number in `TraceLayout.Chunk`, its payload in `TraceChunks`, a case here, then
/// either `TraceMetadata.absorb` (what a process is: names, clock, info...) or the TrailTrace `CallBuilder`'s
/// `take` (what its threads did) handles it. A type this reader does not know, or a payload too short for its
/// type, is `.unknown` and skipped.
public enum TraceChunk {
    /// INFO: `key=value` lines (`TraceInfo`).
    case info(TraceInfo)
    case name(TraceChunks.Name)
    case thread(TraceChunks.Thread)
    /// RECORDS: the header, and its records' bytes (`count` records of `TraceRecord.size`).
    case records(TraceChunks.Records, UnsafeRawPointer)
    case clock(TraceChunks.Clock)
    case end(TraceChunks.End)
    case cut(TraceChunks.Cut)
    case watermark(UInt64)
    case span(TraceChunks.Span)
    case unknown(type: UInt32)

    public init(type: UInt32, payload: UnsafeRawBufferPointer) {
        let decoded: TraceChunk? =
            switch TraceLayout.Chunk(rawValue: type) {
            case .info: .info(TraceInfo(payload))
            case .names: TraceChunks.Name(payload).map(TraceChunk.name)
            case .thread: TraceChunks.Thread(payload).map(TraceChunk.thread)
            case .records:
                TraceChunks.Records(payload).map { .records($0, payload.baseAddress! + TraceLayout.recordsHeaderSize) }
            case .clock: TraceChunks.Clock(payload).map(TraceChunk.clock)
            case .end: TraceChunks.End(payload).map(TraceChunk.end)
            case .cut: TraceChunks.Cut(payload).map(TraceChunk.cut)
            case .watermark: TraceChunks.watermark(payload).map(TraceChunk.watermark)
            case .span: TraceChunks.Span(payload).map(TraceChunk.span)
            case .none: nil
            }
        self = decoded ?? .unknown(type: type)
    }
}
