import TrailFormat

/// Records where the trace file holds them: 16 bytes each, little-endian, aligned to 4 bytes only (a NAMES
/// chunk before them is padded to 4).
struct RecordRun {
    let base: UnsafeRawPointer
    let count: Int
    /// The ordinal of the block they are in (`TraceFile.ChunkCursor.firstBlockInUse`); `owned` (-1) for a copy
    /// in memory of their own.
    let block: Int
    static let owned = -1

    subscript(index: Int) -> TraceRecord {
        @inline(__always) get {
            TraceRecord(base, at: index &* TraceRecord.size)
        }
    }
}

/// A thread's records not yet handed on, held in place in the mapped file until a watermark releases them:
/// the runs of the chunks they came in, and how far into the first the reader is. Runs from blocks the
/// reader wants to let go of are copied into one run of their own, always the first.
struct PendingRecords {
    private var runs: [RecordRun] = []
    private var first = 0
    /// Records of `current` already handed on.
    private(set) var offset = 0

    var isEmpty: Bool { first == runs.count }
    var current: RecordRun { runs[first] }
    /// The time of the next record; not empty.
    var nextTime: UInt64 { runs[first][offset].time }
    /// The first block a run is in; nil when none is.
    var firstBlock: Int? {
        if isEmpty { return nil }
        if runs[first].block != RecordRun.owned { return runs[first].block }
        return first + 1 < runs.count ? runs[first + 1].block : nil
    }

    mutating func append(_ run: RecordRun) {
        if run.count > 0 { runs.append(run) }
    }

    /// `handled` more records of `current` were handed on; true when that finished it.
    mutating func advance(by handled: Int) -> Bool {
        offset += handled
        guard offset == runs[first].count else { return false }
        offset = 0
        if runs[first].block == RecordRun.owned { UnsafeMutableRawPointer(mutating: runs[first].base).deallocate() }
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

    /// Copies what is held from blocks before `block` into one run of its own, so those blocks can go.
    mutating func adopt(before block: Int) {
        var end = first
        while end < runs.count, runs[end].block < block { end += 1 }
        guard end > first, end > first + 1 || runs[first].block != RecordRun.owned else { return }
        let count = runs[first ..< end].reduce(0) { $0 + $1.count } - offset
        let copy = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1) * TraceRecord.size, alignment: 16)
        var filled = 0
        for index in first ..< end {
            let run = runs[index]
            let skipped = index == first ? offset : 0
            (copy + filled * TraceRecord.size).copyMemory(
                from: run.base + skipped * TraceRecord.size,
                byteCount: (run.count - skipped) * TraceRecord.size)
            filled += run.count - skipped
            if run.block == RecordRun.owned { UnsafeMutableRawPointer(mutating: run.base).deallocate() }
        }
        runs.replaceSubrange(first ..< end, with: [RecordRun(base: copy, count: count, block: RecordRun.owned)])
        offset = 0
    }

    /// Frees the copies still held (a reader that stopped before the end).
    mutating func freeCopies() {
        for run in runs[first...] where run.block == RecordRun.owned {
            UnsafeMutableRawPointer(mutating: run.base).deallocate()
        }
        runs.removeAll()
        first = 0
        offset = 0
    }
}
