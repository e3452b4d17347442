import Foundation
import TrailFormat

/// Writes v2 trace files by hand (Docs/trace-format.md), to test readers on shapes a real run makes rarely:
/// wrapped files, cuts, threads interleaved just so. The clock is monotonic nanoseconds, so ticks are ns.
struct TraceBuilder {
    var blockSize = 4096
    var policy: TraceLayout.Policy = .unbounded
    var pid: UInt32 = 4242
    var wallStart: UInt64 = 1_700_000_000_000_000_000
    private(set) var blocks: [[UInt8]] = [[]]

    static func word(_ kind: TraceRecord.Kind, _ address: UInt64, depth: Int = 0) -> UInt64 {
        address | UInt64(depth) << 48 | UInt64(kind.rawValue) << 60
    }

    mutating func chunk(_ type: TraceLayout.Chunk, _ payload: [UInt8]) {
        let size = 8 + payload.count
        if blocks[blocks.count - 1].count + size > blockSize - TraceLayout.blockHeaderSize { blocks.append([]) }
        var bytes = le(type.rawValue) + le(UInt32(payload.count))
        bytes += payload
        blocks[blocks.count - 1] += bytes
    }

    mutating func info(exe: String) { chunk(.info, Array("exe=\(exe)\npid=\(pid)\nhost=test\napp=test\n".utf8)) }

    mutating func name(_ site: UInt64, _ text: String) {
        var payload = le(site) + le(UInt32(text.utf8.count)) + Array(text.utf8)
        while payload.count % 4 != 0 { payload.append(0) }
        chunk(.names, payload)
    }

    mutating func thread(slot: UInt32, tid: UInt32, name: String) {
        var nameBytes = Array(name.utf8.prefix(15))
        nameBytes += [UInt8](repeating: 0, count: 16 - nameBytes.count)
        chunk(.thread, le(slot) + le(tid) + nameBytes + le(UInt64(0)))
    }

    /// Records `(time, word)` of one thread, from `position`.
    mutating func records(slot: UInt32, tid: UInt32, position: UInt64, _ records: [(UInt64, UInt64)]) {
        var payload = le(slot) + le(tid) + le(position)
        for (time, word) in records { payload += le(time) + le(word) }
        chunk(.records, payload)
    }

    mutating func watermark(_ ticks: UInt64) { chunk(.watermark, le(ticks)) }
    mutating func clock(_ ticks: UInt64) { chunk(.clock, le(ticks) + le(ticks)) }
    mutating func end(records: UInt64, dropped: UInt64 = 0) { chunk(.end, le(records) + le(dropped)) }
    mutating func cut(records: UInt64, bytes: UInt64) {
        chunk(.cut, le(policy.rawValue) + le(UInt32(0)) + le(records) + le(bytes))
    }
    /// Starts a new block, as a writer does when the current one is full.
    mutating func nextBlock() { blocks.append([]) }

    /// Writes the file. With `rotation` r > 0 it is laid out as a writer that wrapped leaves it: the blocks
    /// (oldest first, as built) start at file slot r and wrap around, with sequence numbers from n.
    func write(to path: String, rotation: Int = 0) throws {
        var file = Array("TRAILTRC".utf8) + le(TraceLayout.version) + le(UInt32(TraceLayout.headerSize)) + le(pid)
        file += le(TraceLayout.Clock.monotonic.rawValue) + le(wallStart) + le(UInt64(0)) + le(UInt64(0))
        file += le(UInt32(blockSize)) + le(policy.rawValue) + le(UInt64(rotation > 0 ? blocks.count : 0))
        let count = blocks.count
        for slot in 0 ..< count {
            let block = (slot - rotation + count) % count
            let sequence = UInt64(rotation > 0 ? count + block : block)
            var bytes = Array("TBLK".utf8) + le(UInt32(blocks[block].count)) + le(sequence)
            bytes += blocks[block]
            if slot < count - 1 || rotation > 0 { bytes += [UInt8](repeating: 0xEE, count: blockSize - bytes.count) }
            file += bytes
        }
        try Data(file).write(to: URL(fileURLWithPath: path))
    }
}

func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.littleEndian) { Array($0) }
}
