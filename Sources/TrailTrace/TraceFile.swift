#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import TrailFormat

/// One trace file as the runtime's recorder writes it (Docs/trace-format.md): a header, then blocks of chunks
/// read in sequence order. Opening reads the header, the block directory and what a one-pass reader needs
/// first (the clock rate; every name, when the file wrapped); `readChunks` then streams the chunks a block at a
/// time, so memory never grows with the file. A file cut short is read up to its last whole record.
public final class TraceFile {
    public typealias Record = TraceRecord
    public typealias Kind = TraceRecord.Kind

    public struct FormatError: Error, CustomStringConvertible {
        public var description: String
    }

    struct Block {
        var sequence: UInt64
        var offset: Int
        var used: Int
    }

    /// What the size limit cut (Docs/trace-format.md, CUT).
    public struct Cut: Sendable {
        public var policy: TraceLayout.Policy
        public var records: UInt64
        public var bytes: UInt64
    }

    public let path: String
    public let header: TraceHeader
    public var pid: UInt32 { header.pid }
    public var startWallNanoseconds: UInt64 { header.wallNanoseconds }
    public private(set) var info: [String: String] = [:]
    /// Site address -> "Module.Type.f(x:) @ File.swift:12"; complete after opening a wrapped file, else
    /// filled as the chunks are read (a name always comes before the records that use it).
    public private(set) var names: [UInt64: String] = [:]
    /// True when the file wrapped (policy keep-last): its oldest blocks were overwritten (and `cut` is known
    /// from the start).
    public let wrapped: Bool
    /// Nanoseconds per clock tick.
    public let nanosecondsPerTick: Double

    // Learnt while reading.
    public private(set) var complete = false
    public private(set) var truncated = false
    public private(set) var cut: Cut?
    public private(set) var endDropped: UInt64 = 0

    private let blocks: [Block]

    public init(path: String) throws {
        self.path = path
        // The file is open, and a block's buffer held, only while it is being read: a folder of hundreds of
        // traces costs a directory of blocks each, no more.
        // Non-blocking: a FIFO or device named like a trace must not hang the reader.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw FormatError(description: "\(path): cannot read the trace file: \(String(cString: strerror(errno)))")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw FormatError(description: "\(path): not a trail trace file (not a regular file)")
        }
        let fileSize = Int(status.st_size)
        var headerBytes = [UInt8](repeating: 0, count: TraceLayout.headerSize)
        let got = headerBytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard got >= 8, TraceLayout.hasMagic(headerBytes) else {
            close(descriptor)
            throw FormatError(description: "\(path): not a trail trace file (no \(TraceLayout.magic) header)")
        }
        guard got == TraceLayout.headerSize else {
            close(descriptor)
            throw FormatError(description: "\(path): the trace ends inside its header (\(max(got, 0)) of \(TraceLayout.headerSize) bytes)")
        }
        guard let header = TraceHeader(headerBytes), header.version == TraceLayout.version else {
            close(descriptor)
            let version = headerBytes[8 ..< 12].reversed().reduce(0) { $0 << 8 | Int($1) }
            throw FormatError(description: "\(path): trace format version \(version) is not supported (this trail reads version \(TraceLayout.version); record it again)")
        }
        guard header.blockSize >= 4096, header.blockSize <= 1 << 30, header.blockSize & (header.blockSize - 1) == 0,
              header.size >= TraceLayout.headerSize else {
            close(descriptor)
            throw FormatError(description: "\(path): the header is damaged (block size \(header.blockSize), header size \(header.size))")
        }
        self.header = header
        let buffer = Self.borrowBuffer(header.blockSize)
        defer {
            Self.returnBuffer(buffer)
            close(descriptor)
        }

        // The block directory: every slot's 16-byte header, in sequence order.
        var blocks: [Block] = []
        var truncated = false
        var offset = header.size
        var blockHeader = [UInt8](repeating: 0, count: TraceLayout.blockHeaderSize)
        while offset + TraceLayout.blockHeaderSize <= fileSize {
            let read = blockHeader.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
            guard read == TraceLayout.blockHeaderSize, Self.isBlockMagic(blockHeader) else {
                truncated = true
                break
            }
            var used = Int(Self.u32(blockHeader, 4))
            let sequence = Self.u64(blockHeader, 8)
            if used > header.blockSize - TraceLayout.blockHeaderSize || offset + TraceLayout.blockHeaderSize + used > fileSize {
                used = min(header.blockSize - TraceLayout.blockHeaderSize, fileSize - offset - TraceLayout.blockHeaderSize)
                truncated = true
            }
            blocks.append(Block(sequence: sequence, offset: offset + TraceLayout.blockHeaderSize, used: used))
            offset += header.blockSize
        }
        blocks.sort { $0.sequence < $1.sequence }
        self.blocks = blocks
        self.truncated = truncated
        wrapped = blocks.first.map { $0.sequence > 0 } ?? false

        // The clock rate from the header's sample and the last CLOCK chunk.
        var rate = 1.0
        if header.clockKind == TraceLayout.Clock.cycles.rawValue {
            var last: (ticks: UInt64, nanoseconds: UInt64)?
            for block in blocks.reversed() where last == nil {
                Self.chunks(in: block, descriptor: descriptor, buffer: buffer) { type, payload in
                    if type == TraceLayout.Chunk.clock.rawValue, payload.count >= 16 {
                        last = (payload.loadUnaligned(as: UInt64.self), payload.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                    }
                }
            }
            if let last, last.ticks > header.ticks, last.nanoseconds > header.monotonicNanoseconds {
                rate = Double(last.nanoseconds - header.monotonicNanoseconds) / Double(last.ticks - header.ticks)
            }
        }
        nanosecondsPerTick = rate

        // A wrapped file's names may sit after the records that use them: gather them all first.
        if wrapped {
            for block in blocks {
                Self.chunks(in: block, descriptor: descriptor, buffer: buffer) { type, payload in
                    if type == TraceLayout.Chunk.names.rawValue { addName(payload) }
                    if type == TraceLayout.Chunk.info.rawValue { addInfo(payload) }
                    if type == TraceLayout.Chunk.cut.rawValue { addCut(payload) }
                }
            }
        } else if let first = blocks.first {
            // INFO is the first chunk: its start is read, and the whole block only when INFO is larger.
            var found = false
            for prefix in [min(first.used, 64 << 10), first.used] where !found {
                Self.chunks(in: first, prefix: prefix, descriptor: descriptor, buffer: buffer) { type, payload in
                    if type == TraceLayout.Chunk.info.rawValue, !found {
                        addInfo(payload)
                        found = true
                    }
                }
            }
        }
    }

    /// The executable's file name, from the INFO chunk.
    public var executableName: String {
        let exe = info["exe"] ?? info["app"] ?? "process"
        return exe.split(separator: "/").last.map(String.init) ?? exe
    }

    /// Nanoseconds since recording started, for a tick count.
    @inlinable public func nanoseconds(_ ticks: UInt64) -> Double {
        Double(Int64(bitPattern: ticks &- header.ticks)) * nanosecondsPerTick
    }

    /// Every chunk in sequence order: `visit(type, payload)`. The payload is valid only during the call.
    /// NAMES, INFO, END and CUT are also kept here as they pass.
    public func readChunks(_ visit: (UInt32, UnsafeRawBufferPointer) -> Void) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            truncated = true
            return
        }
        let buffer = Self.borrowBuffer(header.blockSize)
        defer {
            Self.returnBuffer(buffer)
            close(descriptor)
        }
        for block in blocks {
            let whole = Self.chunks(in: block, descriptor: descriptor, buffer: buffer) { type, payload in
                switch TraceLayout.Chunk(rawValue: type) {
                case .names: addName(payload)
                case .end:
                    complete = true
                    if payload.count >= 16 { endDropped = payload.loadUnaligned(fromByteOffset: 8, as: UInt64.self) }
                case .cut: addCut(payload)
                default: break
                }
                visit(type, payload)
            }
            if !whole { truncated = true }
        }
    }

    private func addName(_ payload: UnsafeRawBufferPointer) {
        guard payload.count >= 12 else { return }
        let site = payload.loadUnaligned(as: UInt64.self)
        let length = Int(payload.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        guard length <= payload.count - 12, names[site] == nil else { return }
        names[site] = String(decoding: UnsafeRawBufferPointer(rebasing: payload[12 ..< 12 + length]), as: UTF8.self)
    }

    /// The totals only grow: the largest CUT chunk is the last one written.
    private func addCut(_ payload: UnsafeRawBufferPointer) {
        guard payload.count >= 24, let policy = TraceLayout.Policy(rawValue: payload.loadUnaligned(as: UInt32.self)) else { return }
        let records = payload.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        if records >= cut?.records ?? 0 {
            cut = Cut(policy: policy, records: records, bytes: payload.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
        }
    }

    private func addInfo(_ payload: UnsafeRawBufferPointer) {
        for line in String(decoding: payload, as: UTF8.self).split(separator: "\n") {
            if let equals = line.firstIndex(of: "=") { info[String(line[..<equals])] = String(line[line.index(after: equals)...]) }
        }
    }

    /// One spare block buffer for the next read: opening a trace and then streaming it, or one file after
    /// another, would otherwise map and fault in a fresh megabyte each time.
    private static let spare = Mutex<(address: UInt, size: Int)?>(nil)

    private static func borrowBuffer(_ size: Int) -> UnsafeMutableRawBufferPointer {
        let reused = spare.withLock { buffer -> UInt? in
            guard let found = buffer, found.size == size else { return nil }
            buffer = nil
            return found.address
        }
        if let reused, let start = UnsafeMutableRawPointer(bitPattern: reused) {
            return UnsafeMutableRawBufferPointer(start: start, count: size)
        }
        return .allocate(byteCount: size, alignment: 16)
    }

    private static func returnBuffer(_ returned: UnsafeMutableRawBufferPointer) {
        let kept = (address: UInt(bitPattern: returned.baseAddress), size: returned.count)
        let dropped = spare.withLock { buffer -> UInt? in
            defer { buffer = kept }
            return buffer?.address
        }
        if let dropped { UnsafeMutableRawPointer(bitPattern: dropped)?.deallocate() }
    }

    /// Reads one block (its first `prefix` bytes) and walks its chunks; false when a chunk runs past the end.
    @discardableResult
    private static func chunks(in block: Block, prefix: Int? = nil, descriptor: Int32, buffer: UnsafeMutableRawBufferPointer,
                               _ visit: (UInt32, UnsafeRawBufferPointer) -> Void) -> Bool {
        var filled = 0
        let wanted = min(prefix ?? block.used, block.used)
        while filled < wanted {
            let read = pread(descriptor, buffer.baseAddress! + filled, wanted - filled, off_t(block.offset + filled))
            if read <= 0 { break }
            filled += read
        }
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[0 ..< filled])
        var offset = 0
        while offset + TraceLayout.chunkHeaderSize <= filled {
            let type = bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            let size = Int(bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
            let start = offset + TraceLayout.chunkHeaderSize
            guard start + size <= filled else {
                // A file cut inside a chunk of records (a full disk, a killed process) keeps its whole records.
                let whole = (filled - start - TraceLayout.recordsHeaderSize) / TraceRecord.size
                if type == TraceLayout.Chunk.records.rawValue, start + TraceLayout.recordsHeaderSize <= filled, whole > 0 {
                    let end = start + TraceLayout.recordsHeaderSize + whole * TraceRecord.size
                    visit(type, UnsafeRawBufferPointer(rebasing: bytes[start ..< end]))
                }
                return false
            }
            visit(type, UnsafeRawBufferPointer(rebasing: bytes[start ..< start + size]))
            offset = start + size
        }
        return offset == filled && filled == block.used
    }

    private static func isBlockMagic(_ bytes: [UInt8]) -> Bool {
        let magic = TraceLayout.blockMagic
        return (0 ..< 4).allSatisfy { bytes[$0] == magic.utf8Start[$0] }
    }

    private static func u32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (0 ..< 4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }

    private static func u64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        UInt64(u32(bytes, offset)) | UInt64(u32(bytes, offset + 4)) << 32
    }
}
