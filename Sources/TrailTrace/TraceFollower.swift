import TrailFormat

#if canImport(Glibc)
import Glibc
#endif

/// Reads a trace while its process is still writing it, for `trail export --otlp --follow`: each poll hands the
/// visitor what was written since, calls at their end as a finished file's reader does. The file is read with
/// `pread` a block at a time from where the last poll stopped (the writer only appends to a block, then moves
/// on; a wrapping file reuses blocks with a higher sequence), and records are copied, since a block may be
/// overwritten while they wait on a watermark. A follower that falls a lap behind a wrapping writer counts the
/// blocks it lost and goes on from the oldest left.
public final class TraceFollower {
    public let file: TraceFile
    public let process: TraceProcess
    private var reader: TraceReader
    private let descriptor: Int32
    private var slot = -1  // the block being read; -1 until one is found
    private var sequence: UInt64 = 0  // its sequence
    private var consumed = 0  // bytes of its chunks handed on
    private var begun = false
    /// Blocks overwritten before they were read.
    public private(set) var lostBlocks: UInt64 = 0

    public init(path: String, sites: SiteTable) throws {
        file = try TraceFile(path: path)
        process = TraceProcess(file: file, sites: sites)
        reader = TraceReader(process: process)
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw TraceFile.FormatError(
                description: "\(path): cannot read the trace file: \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(descriptor) }

    /// The process wrote its END chunk: nothing more will come.
    public var ended: Bool { file.complete }

    /// Hands `visitor` what was written since the last poll, up to about `limit` bytes (a block's worth past
    /// it at most, so a follower catching up holds little at once); returns the bytes of chunks read.
    @discardableResult
    public func poll<V: CallVisitor>(into visitor: inout V, limit: Int = .max) -> Int {
        if !begun {
            visitor.beginProcess(process)
            begun = true
        }
        var total = 0
        while total < limit {
            if slot < 0 {
                guard let oldest = oldestBlock(after: nil) else { return total }
                (slot, sequence, consumed) = (oldest.slot, oldest.sequence, 0)
            }
            guard let head = blockHeader(slot) else { return total }
            if head.sequence != sequence {
                // Rewritten with a later lap: what it held is gone. Go on from the oldest block left.
                guard head.sequence > sequence, let oldest = oldestBlock(after: sequence) else { return total }
                lostBlocks += oldest.sequence - sequence
                (slot, sequence, consumed) = (oldest.slot, oldest.sequence, 0)
                continue
            }
            if head.used > consumed {
                var bytes = [UInt8](repeating: 0, count: head.used - consumed)
                let offset = blockOffset(slot) + TraceLayout.blockHeaderSize + consumed
                let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
                // rewritten meanwhile
                guard got == bytes.count, blockHeader(slot)?.sequence == sequence else { continue }
                bytes.withUnsafeBytes { raw in
                    var chunks = BlockChunks(raw, used: raw.count)
                    while let (type, payload) = chunks.next() {
                        reader.take(TraceChunk(type: type, payload: payload), block: RecordRun.owned, &visitor)
                    }
                }
                consumed = head.used
                total += bytes.count
            }
            // The writer moved on once the next block carries the next sequence: here after this one, or at the
            // start when the file wraps.
            if let next = [slot + 1, 0].first(where: { blockHeader($0)?.sequence == sequence + 1 }) {
                (slot, sequence, consumed) = (next, sequence + 1, 0)
                continue
            }
            return total
        }
        return total
    }

    /// The process is gone (or ended): calls still open end at its last record, and the visitor hears the end.
    public func finish<V: CallVisitor>(into visitor: inout V) {
        if !begun { visitor.beginProcess(process) }
        begun = true
        reader.builder.finish(&visitor)
    }

    private func blockOffset(_ slot: Int) -> Int { file.header.size + slot * file.header.blockSize }

    private func blockHeader(_ slot: Int) -> (used: Int, sequence: UInt64)? {
        var bytes = [UInt8](repeating: 0, count: TraceLayout.blockHeaderSize)
        let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(blockOffset(slot))) }
        guard got == bytes.count, let header = bytes.withUnsafeBytes({ TraceChunks.BlockHeader($0) }),
            header.used <= file.header.blockSize - TraceLayout.blockHeaderSize
        else { return nil }
        return (header.used, header.sequence)
    }

    /// The block with the lowest sequence (above `after`, when given) among those in the file now.
    private func oldestBlock(after: UInt64?) -> (slot: Int, sequence: UInt64)? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        let slots = max(0, (Int(status.st_size) - file.header.size) / file.header.blockSize + 1)
        var best: (slot: Int, sequence: UInt64)?
        for index in 0 ..< slots {
            guard let head = blockHeader(index) else { continue }
            if let after, head.sequence <= after { continue }
            if best == nil || head.sequence < best!.sequence { best = (index, head.sequence) }
        }
        return best
    }
}
