import TrailFormat

/// The chunks of one block's bytes, in order. A block cut inside a chunk of records (a full disk, a killed
/// process) gives its whole records; `whole` then turns false.
struct BlockChunks {
    private let bytes: UnsafeRawBufferPointer
    private let used: Int
    private var offset = 0
    /// False once a chunk ran past the bytes, or when the bytes are fewer than the block's header says.
    private(set) var whole: Bool

    init(_ bytes: UnsafeRawBufferPointer, used: Int) {
        self.bytes = bytes
        self.used = used
        whole = bytes.count == used
    }

    mutating func next() -> (UInt32, UnsafeRawBufferPointer)? {
        let filled = bytes.count
        guard offset + TraceLayout.chunkHeaderSize <= filled else {
            if offset != filled { whole = false }
            return nil
        }
        let (type, size) = TraceChunks.chunkHeader(bytes, at: offset)
        let start = offset + TraceLayout.chunkHeaderSize
        guard start + size <= filled else {
            whole = false
            offset = filled
            let records = (filled - start - TraceLayout.recordsHeaderSize) / TraceRecord.size
            guard type == TraceLayout.Chunk.records.rawValue, start + TraceLayout.recordsHeaderSize <= filled,
                records > 0
            else { return nil }
            return (
                type,
                UnsafeRawBufferPointer(
                    rebasing: bytes[start ..< start + TraceLayout.recordsHeaderSize + records * TraceRecord.size])
            )
        }
        offset = start + size
        return (type, UnsafeRawBufferPointer(rebasing: bytes[start ..< offset]))
    }
}
