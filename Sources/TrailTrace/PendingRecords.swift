import TrailFormat

/// Records where the trace file holds them: 16 bytes each, little-endian, aligned to 4 bytes only (a NAMES
/// chunk before them is padded to 4).
struct RecordRun {
    let base: UnsafeRawPointer
    let count: Int
    /// The ordinal of the block they are in (`TraceFile.ChunkCursor.firstBlockInUse`).
    let block: Int

    subscript(index: Int) -> TraceRecord {
        @inline(__always) get {
            let offset = index &* TraceRecord.size
            return TraceRecord(time: UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)),
                               word: UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)))
        }
    }
}

/// A thread's records not yet handed on, held in place in the mapped file until a watermark releases them:
/// the runs of the chunks they came in, and how far into the first the reader is.
struct PendingRecords {
    private var runs: [RecordRun] = []
    private var first = 0
    /// Records of `current` already handed on.
    private(set) var offset = 0

    var isEmpty: Bool { first == runs.count }
    var current: RecordRun { runs[first] }
    /// The time of the next record; not empty.
    var nextTime: UInt64 { runs[first][offset].time }
    var firstBlock: Int? { isEmpty ? nil : runs[first].block }

    mutating func append(_ run: RecordRun) {
        if run.count > 0 { runs.append(run) }
    }

    /// `handled` more records of `current` were handed on; true when that finished it.
    mutating func advance(by handled: Int) -> Bool {
        offset += handled
        guard offset == runs[first].count else { return false }
        offset = 0
        first += 1
        if first == runs.count {
            runs.removeAll(keepingCapacity: true)
            first = 0
        } else if first >= 64, first * 2 >= runs.count {
            // A thread that is always busy never empties its queue.
            runs.removeFirst(first)
            first = 0
        }
        return true
    }
}
