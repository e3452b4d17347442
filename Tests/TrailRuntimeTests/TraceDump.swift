import Foundation
import TrailFormat

/// A v2 trace file walked independently of the viewers' reader: blocks in sequence order, their chunks, and
/// each thread's records, with the writer's invariants checked on the way (`problems`).
struct TraceDump {
    struct Records {
        var slot: UInt32, tid: UInt32, position: UInt64
        var records: [TraceRecord]
    }

    var header: TraceHeader
    var sequences: [UInt64] = []
    var info: [String: String] = [:]
    var names: [UInt64: String] = [:]
    var chunks: [Records] = []
    var threads: [UInt32: (tid: UInt32, name: String, dropped: UInt64)] = [:]
    var cuts: [(policy: UInt32, records: UInt64, bytes: UInt64)] = []
    var watermarks: [UInt64] = []
    /// SPAN chunks: token and phase.
    var spans: [(token: UInt64, phase: UInt32)] = []
    var end: (records: UInt64, dropped: UInt64)?
    var problems: [String] = []
    var fileSize = 0

    /// Every record of a slot in position order.
    func records(slot: UInt32) -> [TraceRecord] { chunks.filter { $0.slot == slot }.flatMap(\.records) }
    var allRecords: [TraceRecord] { chunks.flatMap(\.records) }
    var recordCount: Int { chunks.reduce(0) { $0 + $1.records.count } }
    var cut: (policy: UInt32, records: UInt64, bytes: UInt64)? { cuts.max { $0.records < $1.records } }

    init(path: String) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        fileSize = bytes.count
        guard let header = TraceHeader(bytes) else { throw DumpError(text: "no v2 header in \(path)") }
        self.header = header
        func u32(_ at: Int) -> UInt32 { (0 ..< 4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) } }
        func u64(_ at: Int) -> UInt64 { UInt64(u32(at)) | UInt64(u32(at + 4)) << 32 }
        if header.version != TraceLayout.version { problems.append("version \(header.version)") }
        if header.size != TraceLayout.headerSize { problems.append("header size \(header.size)") }
        var blocks: [(sequence: UInt64, offset: Int, used: Int)] = []
        var offset = header.size
        while offset + TraceLayout.blockHeaderSize <= bytes.count {
            if bytes[offset ..< offset + 4].elementsEqual("TBLK".utf8) {
                blocks.append((u64(offset + 8), offset, Int(u32(offset + 4))))
            } else {
                problems.append("no block magic at \(offset)")
            }
            offset += header.blockSize
        }
        if header.maxBlocks > 0, blocks.count > Int(header.maxBlocks) {
            problems.append("\(blocks.count) blocks > max \(header.maxBlocks)")
        }
        blocks.sort { $0.sequence < $1.sequence }
        sequences = blocks.map(\.sequence)
        var next: [UInt32: UInt64] = [:]
        for block in blocks {
            var at = block.offset + TraceLayout.blockHeaderSize
            let stop = at + block.used
            if block.used > header.blockSize - TraceLayout.blockHeaderSize {
                problems.append("block \(block.sequence) used \(block.used)")
            }
            if stop > bytes.count {
                problems.append("block \(block.sequence) cut short")
                continue
            }
            while at + 8 <= stop {
                let type = u32(at)
                let size = Int(u32(at + 4))
                let payload = at + 8
                if payload + size > stop {
                    problems.append("chunk crosses block \(block.sequence)")
                    break
                }
                if end != nil { problems.append("a chunk after END") }
                switch TraceLayout.Chunk(rawValue: type) {
                case .info:
                    let text = String(decoding: bytes[payload ..< payload + size].prefix { $0 != 0 }, as: UTF8.self)
                    for line in text.split(separator: "\n") {
                        let parts = line.split(separator: "=", maxSplits: 1)
                        if parts.count == 2 { info[String(parts[0])] = String(parts[1]) }
                    }
                case .names:
                    let length = Int(u32(payload + 8))
                    names[u64(payload)] = String(decoding: bytes[payload + 12 ..< payload + 12 + length], as: UTF8.self)
                case .thread:
                    let name = String(decoding: bytes[payload + 8 ..< payload + 24].prefix { $0 != 0 }, as: UTF8.self)
                    threads[u32(payload)] = (u32(payload + 4), name, u64(payload + 24))
                case .records:
                    let slot = u32(payload)
                    let position = u64(payload + 8)
                    let records = bytes.withUnsafeBytes { raw in
                        stride(from: payload + 16, to: payload + size, by: 16).map {
                            TraceRecord(UnsafeRawBufferPointer(rebasing: raw[$0 ..< $0 + 16]), at: 0)
                        }
                    }
                    if let expected = next[slot], expected != position {
                        problems.append("slot \(slot): position \(position), expected \(expected)")
                    }
                    next[slot] = position + UInt64(records.count)
                    chunks.append(Records(slot: slot, tid: u32(payload + 4), position: position, records: records))
                case .cut:
                    cuts.append((u32(payload), u64(payload + 8), u64(payload + 16)))
                case .watermark:
                    watermarks.append(u64(payload))
                case .span:
                    spans.append((u64(payload), u32(payload + 8)))
                case .end:
                    end = (u64(payload), u64(payload + 8))
                case .clock, nil:
                    break
                }
                at = payload + size
            }
        }
        for (index, sequence) in sequences.enumerated() where index > 0 && sequence != sequences[index - 1] + 1 {
            problems.append("sequence \(sequences[index - 1]) then \(sequence)")
        }
        if allRecords.contains(where: { $0.kind == .dropped }) { problems.append("DROPPED records") }
    }
}

struct DumpError: Error, CustomStringConvertible {
    var text: String
    var description: String { text }
}

/// The traces in a folder.
func traces(in directory: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".trace") }.sorted()
        .map { directory + "/" + $0 }
}
