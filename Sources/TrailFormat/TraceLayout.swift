/// The layout of a trace file, as the runtime's recorder writes it (Docs/trace-format.md): a 64-byte header,
/// then fixed-size blocks (`"TBLK", u32 used, u64 sequence`, then `used` bytes of chunks), each chunk
/// `u32 type, u32 size, payload`, all little-endian. The C writer spells the same numbers in
/// Sources/CTrailShim/trail_format.h; TrailFormatTests checks that the two agree.
public enum TraceLayout {
    /// The file's first 8 bytes.
    public static var magic: StaticString { "TRAILTRC" }
    public static var version: UInt32 { 2 }
    /// The header as version 2 writes it; the first block starts at the size the header itself gives.
    public static var headerSize: Int { 64 }
    /// A block's first 4 bytes.
    public static var blockMagic: StaticString { "TBLK" }
    /// `magic, u32 used, u64 sequence` before a block's chunks.
    public static var blockHeaderSize: Int { 16 }
    /// The writer's block size unless a small size limit asks for smaller ones (always a power of two).
    public static var defaultBlockSize: Int { 1 << 20 }
    /// A chunk's type and size before its payload.
    public static var chunkHeaderSize: Int { 8 }
    /// `u32 slot, u32 tid, u64 position` before a RECORDS chunk's records.
    public static var recordsHeaderSize: Int { 16 }

    /// What the writer does when the file reaches its size limit (the header's policy field).
    public enum Policy: UInt32, Sendable {
        /// No limit.
        case unbounded = 0
        /// Blocks wrap: the file holds the most recent records (a flight recorder).
        case keepLast = 1
        /// Records stop when the file is full; the first ones stay.
        case keepFirst = 2
    }

    /// What the ticks of the file's records count.
    public enum Clock: UInt32, Sendable {
        /// The cycle counter (TSC, `cntvct_el0`).
        case cycles = 1
        /// `CLOCK_MONOTONIC` nanoseconds.
        case monotonic = 2
    }

    /// Chunk types, and their payloads. Readers skip a type they do not know.
    ///
    /// - info: `key=value\n` lines: `exe`, `pid`, `host`, `app`
    /// - names: `u64 site address, u32 length, bytes, padding to 4`; every name again at each lap of a
    ///   wrapping file
    /// - thread: `u32 slot, u32 tid, char name[16], u64 records dropped so far`
    /// - records: `u32 slot, u32 tid, u64 position`, then `(size - 16) / 16` records; `position` is the
    ///   index of the first among all records ever put in that slot
    /// - clock: `u64 ticks, u64 monotonic ns`
    /// - end: `u64 records, u64 dropped`: the process stopped tracing cleanly
    /// - cut: `u32 policy, u32 reserved, u64 records, u64 bytes`: totals so far of what the size limit cut
    /// - watermark: `u64 ticks`: every record in a later chunk has a time at or after it
    /// - span: `u64 token, u32 phase (1 start, 2 end), u32 length`, then a tracer span's `SpanDetails`; it
    ///   precedes the span's ASYNC_ENTER (start) or ASYNC_EXIT (end) record
    public enum Chunk: UInt32, Sendable {
        case info = 1
        case names = 2
        case thread = 3
        case records = 4
        case clock = 5
        case end = 6
        case cut = 7
        case watermark = 8
        case span = 9
    }

    /// A SPAN chunk's header before its details, and the most details one chunk carries.
    public static var spanHeaderSize: Int { 16 }
    public static var spanDetailsMax: Int { 65536 }
    public enum SpanPhase: UInt32, Sendable {
        case start = 1
        case end = 2
    }

    /// Where block `index` starts in a file whose header has `headerSize` and `blockSize`.
    public static func blockOffset(_ index: Int, headerSize: Int, blockSize: Int) -> Int {
        headerSize + index * blockSize
    }

    /// Whether `bytes` start with the magic.
    public static func hasMagic(_ bytes: some Collection<UInt8>) -> Bool {
        let magic = UnsafeBufferPointer(start: Self.magic.utf8Start, count: Self.magic.utf8CodeUnitCount)
        return bytes.count >= magic.count && bytes.prefix(magic.count).elementsEqual(magic)
    }
}

/// The header at the start of a trace file.
public struct TraceHeader: Sendable {
    public var version: UInt32
    /// Where the first block starts.
    public var size: Int
    public var pid: UInt32
    /// `TraceLayout.Clock`'s raw value.
    public var clockKind: UInt32
    public var wallNanoseconds: UInt64
    public var ticks: UInt64
    public var monotonicNanoseconds: UInt64
    /// Bytes per block, its header included.
    public var blockSize: Int
    /// `TraceLayout.Policy`'s raw value.
    public var policy: UInt32
    /// The most blocks the file holds (0: unbounded).
    public var maxBlocks: UInt64

    /// Nil when `bytes` are too short for a header or lack the magic.
    public init?(_ bytes: [UInt8]) {
        guard bytes.count >= TraceLayout.headerSize, TraceLayout.hasMagic(bytes) else { return nil }
        func u32(_ offset: Int) -> UInt32 {
            var value: UInt32 = 0
            for index in 0 ..< 4 { value |= UInt32(bytes[offset + index]) << (8 * index) }
            return value
        }
        func u64(_ offset: Int) -> UInt64 { UInt64(u32(offset)) | UInt64(u32(offset + 4)) << 32 }
        version = u32(8)
        size = Int(u32(12))
        pid = u32(16)
        clockKind = u32(20)
        wallNanoseconds = u64(24)
        ticks = u64(32)
        monotonicNanoseconds = u64(40)
        blockSize = Int(u32(48))
        policy = u32(52)
        maxBlocks = u64(56)
    }
}

/// One 16-byte record: `u64 time` (clock ticks), `u64 word`: bits 0-47 an address, 48-59 the thread's
/// synchronous call depth (saturating at 4095), 60-63 the kind.
public struct TraceRecord: Sendable {
    public var time: UInt64
    public var word: UInt64

    public enum Kind: UInt8, Sendable {
        /// A synchronous call starts (address: its site).
        case enter = 1
        /// It returns.
        case exit = 2
        /// An async call starts; two AUX records follow: `{token, task}`, then `{parent token, 0}`.
        case asyncEnter = 3
        /// It returns, on whatever thread; one AUX record follows: `{token, task}`.
        case asyncExit = 4
        /// The next root call on this thread runs in this task (address: the task); one AUX record follows:
        /// `{parent token, 0}`, the innermost async call open in the task (or where it was created).
        case task = 5
        /// Payload of the record before: `time` is a token, the address a task (or 0).
        case aux = 6
        /// The ring was full: `address` records were lost just before this one.
        case dropped = 7
    }

    public static var size: Int { 16 }
    public static var addressBits: UInt64 { 48 }
    public static var depthShift: UInt64 { 48 }
    public static var depthMax: UInt64 { 0xFFF }
    public static var kindShift: UInt64 { 60 }

    @inlinable public init(time: UInt64, word: UInt64) {
        self.time = time
        self.word = word
    }

    /// The record at `offset` of a RECORDS chunk's bytes.
    @inlinable public init(_ raw: UnsafeRawBufferPointer, at offset: Int) {
        self.init(raw.baseAddress!, at: offset)
    }

    /// The record at `offset` from `base` (a run of records held in place).
    @inlinable @inline(__always) public init(_ base: UnsafeRawPointer, at offset: Int) {
        time = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
    }

    /// Nil for a kind this reader does not know.
    @inlinable public var kind: Kind? { Kind(rawValue: UInt8(word >> Self.kindShift)) }
    /// A site, task or count, by kind.
    @inlinable public var address: UInt64 { word & (1 << Self.addressBits - 1) }
    @inlinable public var depth: Int { Int((word >> Self.depthShift) & Self.depthMax) }
}
