import Foundation
import TrailFormat
import TrailTestSupport

/// A one-thread trace written by hand (Docs/trace-format.md, v2) with the monotonic clock, so that ticks are
/// nanoseconds and every time in a viewer's output is known: calls are given as a nested list.
struct SmallTrace {
    /// A call: its function, start and end in nanoseconds, and what it called.
    struct Call {
        var name: String
        var start: UInt64
        var end: UInt64
        var calls: [Call] = []
    }

    var calls: [Call]
    var pid: UInt32 = 4242
    var wallStart: UInt64 = 1_700_000_000_000_000_000

    /// Writes the trace into a fresh folder as `name` and returns its path.
    func write(_ name: String, folder: String = Paths.temporaryDirectory("views")) throws -> String {
        var sites: [String: UInt64] = [:]
        var chunks: [UInt8] = []
        func chunk(_ type: TraceLayout.Chunk, _ payload: [UInt8]) {
            chunks += le(type.rawValue) + le(UInt32(payload.count)) + payload
        }
        chunk(.info, Array("exe=/usr/bin/small\npid=\(pid)\nhost=test\napp=small\n".utf8))
        var records: [UInt8] = []
        var count: UInt64 = 0
        func walk(_ call: Call, depth: Int) {
            let site = sites[call.name] ?? UInt64(0x1000 * (sites.count + 1))
            if sites[call.name] == nil {
                sites[call.name] = site
                var payload = le(site) + le(UInt32(call.name.utf8.count)) + Array(call.name.utf8)
                while payload.count % 4 != 0 { payload.append(0) }
                chunk(.names, payload)
            }
            let word = { (kind: TraceRecord.Kind) in site | UInt64(depth) << 48 | UInt64(kind.rawValue) << 60 }
            records += le(call.start) + le(word(.enter))
            for inner in call.calls { walk(inner, depth: depth + 1) }
            records += le(call.end) + le(word(.exit))
            count += 2
        }
        for call in calls { walk(call, depth: 0) }
        var thread = Array("main".utf8)
        thread += [UInt8](repeating: 0, count: 16 - thread.count)
        chunk(.thread, le(UInt32(0)) + le(UInt32(pid)) + thread + le(UInt64(0)))
        chunk(.records, le(UInt32(0)) + le(UInt32(pid)) + le(UInt64(0)) + records)
        chunk(.watermark, le(UInt64.max))
        chunk(.end, le(count) + le(UInt64(0)))
        let blockSize = 1 << 16
        precondition(chunks.count + TraceLayout.blockHeaderSize <= blockSize, "one block is enough for a test")
        var file = Array("TRAILTRC".utf8) + le(TraceLayout.version) + le(UInt32(TraceLayout.headerSize)) + le(pid)
        file += le(TraceLayout.Clock.monotonic.rawValue) + le(wallStart) + le(UInt64(0)) + le(UInt64(0))
        file += le(UInt32(blockSize)) + le(UInt32(0)) + le(UInt64(0))
        file += Array("TBLK".utf8) + le(UInt32(chunks.count)) + le(UInt64(0)) + chunks
        let path = folder + "/" + name
        try Data(file).write(to: URL(fileURLWithPath: path))
        return path
    }
}

func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.littleEndian) { Array($0) }
}
