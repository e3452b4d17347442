import Foundation
import Testing
import TrailFormat
import TrailTestSupport

/// TrailFormat's chunk decoders against what the C writer really writes (its structs in trail_format.h): a
/// trace recorded by a probe, walked block by block and chunk by chunk with nothing but TraceChunks. A field
/// that moved in either the C struct or the Swift decoder shows up here as a wrong pid, count or position.
@Suite struct TraceChunksTests {
    @Test func aRecordedTraceDecodesThroughTraceChunks() throws {
        let directory = Paths.temporaryDirectory("trace-chunks")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.calls, directory, 5000),
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": directory + "/probe.trace"], check: true)
        #expect(result.stdout.contains("done"))
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/probe.trace")))
        let header = try #require(TraceHeader(bytes))
        #expect(header.version == 2 && header.size == TraceLayout.headerSize && header.blockSize == 1 << 20)
        var info = ""
        var threads: [TraceChunks.Thread] = []
        var records = 0
        var ends: [TraceChunks.End] = []
        var cuts: [TraceChunks.Cut] = []
        var clocks: [TraceChunks.Clock] = []
        var names = 0
        var nextPosition: [UInt32: UInt64] = [:]
        var blocks = 0
        try bytes.withUnsafeBytes { file in
            var offset = header.size
            while offset + TraceLayout.blockHeaderSize <= file.count {
                let block = try #require(
                    TraceChunks.BlockHeader(UnsafeRawBufferPointer(rebasing: file[offset...])), "block at \(offset)")
                #expect(block.sequence == UInt64(blocks))
                blocks += 1
                var at = offset + TraceLayout.blockHeaderSize
                let end = at + block.used
                while at + TraceLayout.chunkHeaderSize <= end {
                    let (type, size) = TraceChunks.chunkHeader(file, at: at)
                    let payload = UnsafeRawBufferPointer(
                        rebasing: file[at + TraceLayout.chunkHeaderSize ..< at + TraceLayout.chunkHeaderSize + size])
                    switch TraceLayout.Chunk(rawValue: type) {
                    case .info: info += String(decoding: payload, as: UTF8.self)
                    case .thread: threads.append(try #require(TraceChunks.Thread(payload)))
                    case .names: names += TraceChunks.Name(payload) != nil ? 1 : 0
                    case .records:
                        let chunk = try #require(TraceChunks.Records(payload))
                        #expect(
                            chunk.position == nextPosition[chunk.slot, default: chunk.position],
                            "records follow on in their ring")
                        nextPosition[chunk.slot] = chunk.position + UInt64(chunk.count)
                        records += chunk.count
                    case .clock: clocks.append(try #require(TraceChunks.Clock(payload)))
                    case .cut: cuts.append(try #require(TraceChunks.Cut(payload)))
                    case .end: ends.append(try #require(TraceChunks.End(payload)))
                    default: break
                    }
                    at += TraceLayout.chunkHeaderSize + size
                }
                offset += header.blockSize
            }
        }
        let pid = header.pid
        #expect(info.contains("pid=\(pid)\n"))
        #expect(threads.contains { $0.tid == pid && $0.name == "trail-probe" && $0.dropped == 0 }, "\(threads)")
        #expect(names >= 1 && records >= 10_000, "\(names) names, \(records) records")
        #expect(ends.count == 1 && ends[0].records == UInt64(records) && ends[0].dropped == 0, "\(ends)")
        #expect(cuts.last.map { $0.policy == .keepLast && $0.records == 0 && $0.bytes == 0 } == true)
        #expect(clocks.last.map { $0.ticks > header.ticks && $0.nanoseconds > header.monotonicNanoseconds } == true)
    }
}
