import TrailFormat

/// The one reading pass over a process's chunks, for a finished file (`read`) and a followed one
/// (`TraceFollower`) alike: each chunk, decoded once (`TraceChunk`), goes to the file's `TraceMetadata` and to
/// the `CallBuilder`, which turns records into calls for the visitor.
struct TraceReader {
    var builder: CallBuilder
    var file: TraceFile { builder.file }

    init(process: TraceProcess) { builder = CallBuilder(process: process) }

    /// One chunk; its records are held in block `block` (`RecordRun.owned`: copied).
    @inline(__always)
    mutating func take<V: CallVisitor>(_ chunk: TraceChunk, block: Int, _ visitor: inout V) {
        file.metadata.absorb(chunk)
        builder.take(chunk, block: block, &visitor)
    }

    /// A finished file, start to end, a block at a time: blocks leave memory once no held record is in them.
    mutating func read<V: CallVisitor>(_ visitor: inout V) {
        visitor.beginProcess(builder.process)
        // The cursor's mapping holds the pending records: it lives until they are all handed on.
        let chunks = file.chunks()
        withExtendedLifetime(chunks) {
            walk(chunks, &visitor)
            builder.release(upTo: .max, &visitor)
        }
        note(chunks)
        builder.finish(&visitor)
    }

    /// Takes the cursor's chunks until it stops (its `end`, or the file's), holding records where they lie.
    mutating func walk<V: CallVisitor>(_ chunks: TraceFile.ChunkCursor, _ visitor: inout V) {
        while let next = chunks.next() {
            take(next.chunk, block: next.block, &visitor)
            if case .records = next.chunk, next.block < chunks.firstBlockInUse {
                chunks.firstBlockInUse = next.block
            }
            if chunks.firstBlockInUse != .max,
                (next.block - chunks.firstBlockInUse) * file.header.blockSize > file.heldBytesLimit
            {
                // A thread holds records from far back (a quiet thread, a clock that jumped): copy them.
                for state in builder.threads { state.pending.adopt(before: next.block) }
                builder.handedOn = true
            }
            if builder.handedOn {
                builder.handedOn = false
                chunks.firstBlockInUse = builder.threads.lazy.compactMap { $0.pending.firstBlock }.min() ?? .max
            }
        }
    }

    /// What the cursor learnt of the file: whether it ends early, and how much it held.
    func note(_ chunks: TraceFile.ChunkCursor) {
        if chunks.truncated { file.truncated = true }
        file.mostBlocksHeld = max(file.mostBlocksHeld, chunks.mostBlocksHeld)
    }
}
