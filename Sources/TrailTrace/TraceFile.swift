import Foundation
import TrailFormat

/// A trace file as written by the runtime's recorder (format: Docs/trace-format.md): a header, then chunks.
/// Reading tolerates a file cut short (a crash, a full disk): everything before the cut is kept.
public struct TraceFile: Sendable {
    /// The record and kind types of the format (Sources/TrailFormat).
    public typealias Record = TraceRecord
    public typealias Kind = TraceRecord.Kind

    public struct Thread: Sendable {
        public var slot: UInt32
        public var tid: UInt32
        public var name: String
        public var dropped: UInt64
        /// Records in the order they were written.
        public var records: [Record] = []
    }

    public var pid: UInt32
    public var startWallNanoseconds: UInt64
    public var info: [String: String] = [:]
    /// Site address -> "Module.Type.f(x:) @ File.swift:12".
    public var names: [UInt64: String] = [:]
    public var threads: [UInt32: Thread] = [:]
    /// (ticks, monotonic ns) pairs, the first from the header.
    public var clock: [(ticks: UInt64, nanoseconds: UInt64)] = []
    /// True when the END chunk was read: the process stopped tracing cleanly.
    public var complete = false
    /// Set when the file ends inside a chunk.
    public var truncated = false
    public var droppedTotal: UInt64 { threads.values.reduce(0) { $0 + $1.dropped } }

    public struct FormatError: Error, CustomStringConvertible {
        public var description: String
    }

    public init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FormatError(description: "\(path): cannot read the trace file")
        }
        try self.init(data: data, path: path)
    }

    public init(data: Data, path: String = "trace") throws {
        let bytes = [UInt8](data)
        guard let header = TraceHeader(bytes) else {
            throw FormatError(description: "\(path): not a trail trace file (no \(TraceLayout.magic) header)")
        }
        guard header.version == TraceLayout.version else {
            throw FormatError(description: "\(path): trace format version \(header.version) is not supported")
        }
        pid = header.pid
        startWallNanoseconds = header.wallNanoseconds
        clock.append((header.ticks, header.monotonicNanoseconds))
        var reader = ByteReader(bytes: bytes, offset: header.size)

        while reader.offset + TraceLayout.chunkHeaderSize <= bytes.count {
            let type = reader.u32(), size = Int(reader.u32())
            guard reader.offset + size <= bytes.count else {
                truncated = true
                break
            }
            var chunk = ByteReader(bytes: bytes, offset: reader.offset)
            reader.offset += size
            switch TraceLayout.Chunk(rawValue: type) {
            case .info:
                let text = String(decoding: bytes[chunk.offset ..< chunk.offset + size], as: UTF8.self)
                for line in text.split(separator: "\n") {
                    if let equals = line.firstIndex(of: "=") {
                        info[String(line[..<equals])] = String(line[line.index(after: equals)...])
                    }
                }
            case .names:
                let site = chunk.u64(), length = Int(chunk.u32())
                guard length <= size - 12 else { continue }
                names[site] = String(decoding: bytes[chunk.offset ..< chunk.offset + length], as: UTF8.self)
            case .thread:
                let slot = chunk.u32(), tid = chunk.u32()
                let nameBytes = bytes[chunk.offset ..< chunk.offset + 16].prefix { $0 != 0 }
                chunk.offset += 16
                let dropped = chunk.u64()
                var thread = threads[slot] ?? Thread(slot: slot, tid: tid, name: "", dropped: 0)
                // A reused slot is a new thread: keep the records under a fresh slot key.
                if thread.tid != tid, !thread.records.isEmpty {
                    threads[slot | 0x8000_0000 &+ UInt32(threads.count)] = thread
                    thread = Thread(slot: slot, tid: tid, name: "", dropped: 0)
                }
                thread.tid = tid
                thread.name = String(decoding: nameBytes, as: UTF8.self)
                thread.dropped = max(thread.dropped, dropped)
                threads[slot] = thread
            case .records:
                let slot = chunk.u32(), count = Int(chunk.u32())
                guard 8 + count * TraceRecord.size <= size else { continue }
                var thread = threads[slot] ?? Thread(slot: slot, tid: 0, name: "", dropped: 0)
                let start = chunk.offset
                bytes.withUnsafeBytes { raw in
                    thread.records.reserveCapacity(thread.records.count + count)
                    for index in 0 ..< count {
                        thread.records.append(Record(raw, at: start + index * TraceRecord.size))
                    }
                }
                threads[slot] = thread
            case .clock:
                clock.append((chunk.u64(), chunk.u64()))
            case .end:
                complete = true
            case .cut, .watermark, nil:
                continue  // unknown chunks from a newer writer are skipped
            }
        }
        if reader.offset < bytes.count, !truncated { truncated = true }
    }

    /// Nanoseconds since the trace started, for a tick count.
    public func nanoseconds(_ ticks: UInt64) -> Double {
        let first = clock[0]
        guard let last = clock.last, last.ticks > first.ticks else { return Double(ticks &- first.ticks) }
        let rate = Double(last.nanoseconds - first.nanoseconds) / Double(last.ticks - first.ticks)
        return (Double(Int64(bitPattern: ticks &- first.ticks))) * rate
    }
}

struct ByteReader {
    let bytes: [UInt8]
    var offset: Int

    mutating func u32() -> UInt32 {
        var value: UInt32 = 0
        for index in 0 ..< 4 { value |= UInt32(bytes[offset + index]) << (8 * index) }
        offset += 4
        return value
    }

    mutating func u64() -> UInt64 {
        var value: UInt64 = 0
        for index in 0 ..< 8 { value |= UInt64(bytes[offset + index]) << (8 * index) }
        offset += 8
        return value
    }
}
