import TrailFormat

#if canImport(Glibc)
import Glibc
#endif

/// One trace file as the runtime's recorder writes it (Docs/trace-format.md): a header, then blocks of chunks
/// read in sequence order. Opening reads the header, the block directory and what a one-pass reader needs
/// first (the clock rate; every name, when the file wrapped); `chunks()` then streams the chunks a block at a
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
    public typealias Cut = TraceChunks.Cut

    public let path: String
    public let header: TraceHeader
    public var pid: UInt32 { header.pid }
    public var startWallNanoseconds: UInt64 { header.wallNanoseconds }
    /// INFO, names, the clock rate, END and CUT: what opening found (the clock's last sample; every name, when
    /// the file wrapped), then what the reading pass absorbs as it goes (`TraceReader`, the one place).
    public internal(set) var metadata: TraceMetadata
    public var info: [String: String] { metadata.info }
    /// One INFO line's value.
    public func info(_ key: TraceInfo.Key) -> String? { metadata.info[key.rawValue] }
    /// Site address -> "Module.Type.f(x:) @ File.swift:12"; complete after opening a wrapped file, else
    /// filled as the chunks are read (a name always comes before the records that use it).
    public var names: [UInt64: String] { metadata.names }
    /// True when the file wrapped (policy keep-last): its oldest blocks were overwritten (and `cut` is known
    /// from the start).
    public let wrapped: Bool
    /// Nanoseconds per clock tick: from the last CLOCK chunk, read at open; a followed file's moves as its CLOCK
    /// chunks arrive.
    public var nanosecondsPerTick: Double { metadata.nanosecondsPerTick }

    // Learnt while reading.
    public var complete: Bool { metadata.complete }
    /// The file ends inside a block or a chunk, or could not be read again.
    public internal(set) var truncated = false
    /// Value records read so far that were cut or malformed (CallBuilder+Values).
    public internal(set) var skippedValues = SkippedValues()
    public var cut: Cut? { metadata.cut }
    public var endDropped: UInt64 { metadata.endDropped }
    /// Records the writer wrote, from END (0 without one).
    public var endRecords: UInt64 { metadata.endRecords }
    /// Whether any records were read (a test process that ran nothing records none).
    public var hasRecords: Bool { metadata.hasRecords }

    let blocks: [Block]
    let fileSize: Int
    let identity: (device: UInt, inode: UInt)
    /// False to read the file into buffers, as where it cannot be mapped (for tests).
    var mapsFile = true
    /// How much of the file a reader may keep in memory for records that wait on a watermark; past it, they
    /// are copied (a thread that holds a record across the whole file would otherwise hold the file).
    var heldBytesLimit = 64 << 20
    /// The most blocks a cursor held at once (for tests).
    var mostBlocksHeld = 0
    /// A report read it on two threads whose halves joined at the split (`ProfileInHalves`; for tests).
    var readInHalves = false

    public init(path: String) throws {
        self.path = path
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
        guard got != 0 else {
            close(descriptor)
            throw FormatError(description: "\(path): the file is empty, not a trail trace")
        }
        guard got >= 8, TraceLayout.hasMagic(headerBytes) else {
            close(descriptor)
            throw FormatError(description: "\(path): not a trail trace file (no \(TraceLayout.magic) header)")
        }
        guard got == TraceLayout.headerSize else {
            close(descriptor)
            throw FormatError(
                description:
                    "\(path): the trace ends inside its header (\(max(got, 0)) of \(TraceLayout.headerSize) bytes)")
        }
        guard let header = TraceHeader(headerBytes), header.version == TraceLayout.version else {
            close(descriptor)
            let version = headerBytes[8 ..< 12].reversed().reduce(0) { $0 << 8 | Int($1) }
            throw FormatError(
                description:
                    "\(path): trace format version \(version) is not supported (this trail reads version \(TraceLayout.version); record it again)"
            )
        }
        guard header.blockSize >= 4096, header.blockSize <= 1 << 30, header.blockSize & (header.blockSize - 1) == 0,
            header.size >= TraceLayout.headerSize
        else {
            close(descriptor)
            throw FormatError(
                description:
                    "\(path): the header is damaged (block size \(header.blockSize), header size \(header.size))")
        }
        self.header = header
        var metadata = TraceMetadata(header: header)
        self.fileSize = fileSize
        identity = (UInt(status.st_dev), UInt(status.st_ino))

        // The block directory: every slot's 16-byte header, in sequence order.
        var blocks: [Block] = []
        var truncated = false
        var offset = header.size
        var blockHeader = [UInt8](repeating: 0, count: TraceLayout.blockHeaderSize)
        while offset + TraceLayout.blockHeaderSize <= fileSize {
            let read = blockHeader.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
            guard read == TraceLayout.blockHeaderSize,
                let decoded = blockHeader.withUnsafeBytes({ TraceChunks.BlockHeader($0) })
            else {
                truncated = true
                break
            }
            var used = decoded.used
            let sequence = decoded.sequence
            if used > header.blockSize - TraceLayout.blockHeaderSize
                || offset + TraceLayout.blockHeaderSize + used > fileSize
            {
                used = min(
                    header.blockSize - TraceLayout.blockHeaderSize, fileSize - offset - TraceLayout.blockHeaderSize)
                truncated = true
            }
            blocks.append(Block(sequence: sequence, offset: offset + TraceLayout.blockHeaderSize, used: used))
            offset += header.blockSize
        }
        blocks.sort { $0.sequence < $1.sequence }
        self.blocks = blocks
        self.truncated = truncated
        wrapped = blocks.first.map { $0.sequence > 0 } ?? false
        // The file is open, and mapped, only while it is being read: a folder of hundreds of traces costs a
        // directory of blocks each, no more.
        let memory = BlockMemory(descriptor: descriptor, fileSize: fileSize, sequential: false)

        // The clock rate, from the last block that holds a CLOCK chunk.
        if header.clockKind == TraceLayout.Clock.cycles.rawValue {
            for block in blocks.reversed() {
                var found = false
                Self.walk(memory, block) { chunk in
                    if case .clock = chunk {
                        metadata.absorb(chunk)
                        found = true
                    }
                }
                if found { break }
            }
        }

        if wrapped {
            // A wrapped file's names may sit after the records that use them: gather them all first.
            for block in blocks {
                Self.walk(memory, block) { chunk in
                    switch chunk {
                    case .name, .info, .cut: metadata.absorb(chunk)
                    default: break
                    }
                }
            }
        } else if let first = blocks.first {
            // INFO is the first chunk: its start is read, and the whole block only when INFO is larger.
            var found = false
            for prefix in [min(first.used, 64 << 10), first.used] where !found {
                var chunks = BlockChunks(memory.bytes(at: first.offset, count: prefix), used: first.used)
                while !found, let (type, payload) = chunks.next() {
                    if type == TraceLayout.Chunk.info.rawValue {
                        metadata.absorb(TraceChunk(type: type, payload: payload))
                        found = true
                    }
                }
            }
        }
        self.metadata = metadata
    }

    /// The same file as `other`, as opened (its metadata as it stands now), for a second reader on another
    /// thread (`ProfileInHalves`): what each reader absorbs stays its own.
    init(copying other: TraceFile) {
        path = other.path
        header = other.header
        metadata = other.metadata
        wrapped = other.wrapped
        truncated = other.truncated
        blocks = other.blocks
        fileSize = other.fileSize
        identity = other.identity
        mapsFile = other.mapsFile
        heldBytesLimit = other.heldBytesLimit
    }

    /// Every chunk of `block`, decoded, then the block's memory released.
    private static func walk(_ memory: BlockMemory, _ block: Block, _ body: (TraceChunk) -> Void) {
        var chunks = BlockChunks(memory.bytes(at: block.offset, count: block.used), used: block.used)
        while let (type, payload) = chunks.next() { body(TraceChunk(type: type, payload: payload)) }
        memory.release(at: block.offset, span: block.used)
    }

    /// The executable's file name, from the INFO chunk.
    public var executableName: String {
        let exe = info(.executable) ?? info(.app) ?? "process"
        return exe.split(separator: "/").last.map(String.init) ?? exe
    }

    /// Nanoseconds since recording started, for a tick count.
    @inlinable public func nanoseconds(_ ticks: UInt64) -> Double {
        Double(Int64(bitPattern: ticks &- header.ticks)) * nanosecondsPerTick
    }

    /// The chunks in sequence order, for one pass through the file.
    public func chunks() -> ChunkCursor { ChunkCursor(file: self) }

    /// The chunks from block ordinal `first` on.
    func chunks(from first: Int) -> ChunkCursor { ChunkCursor(file: self, from: first) }

    /// How many blocks the file holds.
    var blockCount: Int { blocks.count }

    /// Walks a trace's chunks in sequence order, a block at a time, from the mapped file. A chunk stays readable
    /// after the cursor moves on, until the reader says it holds nothing before a later block: a thread's
    /// records are held where they lie until a watermark lets them go, never copied. It only reads: what the
    /// chunks say is for its reader (`TraceReader`) to take.
    public final class ChunkCursor {
        public struct Chunk {
            public var chunk: TraceChunk
            /// The ordinal of the block it is in, for `firstBlockInUse`.
            public var block: Int
        }

        private let file: TraceFile
        private let memory: BlockMemory?
        private var block = -1
        private var walker = BlockChunks(UnsafeRawBufferPointer(start: nil, count: 0), used: 0)
        private var released = 0
        /// The file ended inside a block or a chunk, or could not be opened again.
        public private(set) var truncated = false
        /// The most blocks held at once (for tests).
        var mostBlocksHeld = 0

        /// The first block whose chunks the reader still reads (`Int.max`: none). Blocks before it and before
        /// the block being walked are released; the reader lowers it before the walk leaves a block it holds.
        public var firstBlockInUse = Int.max {
            didSet { release() }
        }
        /// The block ordinal the cursor stops before (`next` gives nil there); raised, it goes on.
        var end = Int.max
        /// Whether each block is mapped in whole when reached; off for a pass that reads a few chunk headers.
        var prefetches = true

        init(file: TraceFile, from first: Int = 0) {
            self.file = file
            block = first - 1
            released = first
            let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                memory = nil
                truncated = true
                return
            }
            // Reading a mapped page past the end of a file that shrank is a SIGBUS, not a short read: a file
            // that is not the one opened, or is shorter now, is read into buffers. (Traces only grow while
            // written; a file cut while this reads it is not covered.)
            var status = stat()
            let same =
                fstat(descriptor, &status) == 0 && Int(status.st_size) >= file.fileSize
                && UInt(status.st_dev) == file.identity.device && UInt(status.st_ino) == file.identity.inode
            memory = BlockMemory(
                descriptor: descriptor, fileSize: file.fileSize, sequential: true, maps: file.mapsFile && same)
        }

        public func next() -> Chunk? {
            guard let memory else { return nil }
            while true {
                if let (type, payload) = walker.next() {
                    return Chunk(chunk: TraceChunk(type: type, payload: payload), block: block)
                }
                if block >= 0, !walker.whole { truncated = true }
                guard block + 1 < min(file.blocks.count, end) else { return nil }
                block += 1
                release()
                let next = file.blocks[block]
                walker = BlockChunks(
                    memory.bytes(at: next.offset, count: next.used, prefetch: prefetches), used: next.used)
            }
        }

        private func release() {
            guard let memory else { return }
            mostBlocksHeld = max(mostBlocksHeld, block - released + 1)
            while released < min(firstBlockInUse, block) {
                let done = file.blocks[released]
                memory.release(at: done.offset, span: file.header.blockSize - TraceLayout.blockHeaderSize)
                released += 1
            }
        }
    }

    /// Whether the file holds any record: its chunks are walked until the first.
    public func holdsRecords() -> Bool {
        let cursor = chunks()
        while let next = cursor.next() {
            if case .records(let records, _) = next.chunk, records.count > 0 { return true }
        }
        return false
    }
}
