/// The layout of a trace file, as the runtime's recorder writes it (Docs/trace-format.md): a header, then
/// fixed-size blocks of chunks `u32 type, u32 size, payload`, all little-endian. The C writer spells the same numbers in
/// Sources/CTrailShim/trail_format.h; TrailFormatTests checks that the two agree.
public enum TraceLayout {
    /// The file's first 8 bytes.
    public static var magic: StaticString { "TRAILTRC" }
    public static var version: UInt32 { 2 }
    /// The header as version 2 writes it; blocks start at the size the header itself gives.
    public static var headerSize: Int { 64 }
    /// A block's `"TBLK", u32 used, u64 sequence` before its chunks.
    public static var blockHeaderSize: Int { 16 }
    public static var blockMagic: StaticString { "TBLK" }
    /// A chunk's type and size before its payload.
    public static var chunkHeaderSize: Int { 8 }
    /// A RECORDS chunk's `u32 slot, u32 tid, u64 position` before its records.
    public static var recordsHeaderSize: Int { 16 }

    /// What a full file keeps (`TRAIL_TRACE_KEEP`).
    public enum Policy: UInt32, Sendable {
        case unbounded = 0
        /// The most recent records: blocks wrap, oldest overwritten first.
        case keepLast = 1
        /// The first records: writing stops when full.
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
    /// - names: `u64 site address, u32 length, bytes, padding to 4`
    /// - thread: `u32 slot, u32 tid, char name[16], u64 records dropped so far`
    /// - records: `u32 slot, u32 tid, u64 position`, then records to the chunk's end
    /// - clock: `u64 ticks, u64 monotonic ns`
    /// - end: `u64 records, u64 dropped`: the process stopped tracing cleanly
    /// - cut: `u32 policy, u32 reserved, u64 records, u64 bytes`: what the size limit cut so far
    /// - watermark: `u64 ticks`: every record in a later chunk is at or after it
    public enum Chunk: UInt32, Sendable {
        case info = 1, names, thread, records, clock, end, cut, watermark
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
    /// Where the first chunk starts.
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
    /// 0: unbounded.
    public var maximumBlocks: UInt64

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
        maximumBlocks = u64(56)
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
        /// An async call starts; two AUX records follow: `{token, task}`, `{parent token, 0}`.
        case asyncEnter = 3
        /// It returns, on whatever thread; an AUX record follows: `{token, task}`.
        case asyncExit = 4
        /// The next root call on this thread runs in this task (address: the task); an AUX record follows:
        /// `{parent token, 0}`.
        case task = 5
        /// Payload of the record before.
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
        time = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
    }

    /// Nil for a kind this reader does not know.
    @inlinable public var kind: Kind? { Kind(rawValue: UInt8(word >> Self.kindShift)) }
    /// A site, task or count, by kind.
    @inlinable public var address: UInt64 { word & (1 << Self.addressBits - 1) }
    @inlinable public var depth: Int { Int((word >> Self.depthShift) & Self.depthMax) }
}
