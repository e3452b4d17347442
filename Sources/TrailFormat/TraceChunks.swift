/// The fixed parts of a trace's blocks and chunks (Docs/trace-format.md), decoded here only: every reader in
/// Sources goes through these. Their C twins are trail_format.h's structs (trail_block_header,
/// trail_thread_chunk, trail_cut_chunk, trail_records_header), whose offsets CWriterTests holds to these.
public enum TraceChunks {
    /// A block's header: how many bytes of chunks follow it, and its sequence (blocks of a wrapped file are read
    /// in sequence order). Nil without the block magic.
    public struct BlockHeader: Sendable, Equatable {
        public var used: Int
        public var sequence: UInt64

        public init?(_ bytes: UnsafeRawBufferPointer) {
            let magic = TraceLayout.blockMagic
            guard bytes.count >= TraceLayout.blockHeaderSize, (0 ..< 4).allSatisfy({ bytes[$0] == magic.utf8Start[$0] })
            else { return nil }
            used = Int(u32(bytes, 4))
            sequence = u64(bytes, 8)
        }
    }

    /// A chunk's header at `offset`: its type and its payload's size.
    @inlinable public static func chunkHeader(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> (
        type: UInt32, size: Int
    ) {
        (u32(bytes, offset), Int(u32(bytes, offset + 4)))
    }

    /// RECORDS: the ring's slot, its thread, the position of the first record, and how many records follow the
    /// header.
    public struct Records: Sendable {
        public var slot: UInt32, tid: UInt32, position: UInt64, count: Int

        @inlinable public init?(_ payload: UnsafeRawBufferPointer) {
            guard payload.count >= TraceLayout.recordsHeaderSize else { return nil }
            slot = u32(payload, 0)
            tid = u32(payload, 4)
            position = u64(payload, 8)
            count = (payload.count - TraceLayout.recordsHeaderSize) / TraceRecord.size
        }
    }

    /// THREAD: a ring's slot, its thread's id and name, and the records it dropped so far.
    public struct Thread: Sendable {
        public var slot: UInt32, tid: UInt32, name: String, dropped: UInt64

        public init?(_ payload: UnsafeRawBufferPointer) {
            guard payload.count >= 32 else { return nil }
            slot = u32(payload, 0)
            tid = u32(payload, 4)
            name = String(
                decoding: UnsafeRawBufferPointer(rebasing: payload[8 ..< 24]).prefix { $0 != 0 }, as: UTF8.self)
            dropped = u64(payload, 24)
        }
    }

    /// CUT: what the size limit has cut so far, under which policy.
    public struct Cut: Sendable {
        public var policy: TraceLayout.Policy, records: UInt64, bytes: UInt64

        public init?(_ payload: UnsafeRawBufferPointer) {
            guard payload.count >= 24, let policy = TraceLayout.Policy(rawValue: u32(payload, 0)) else { return nil }
            self.policy = policy
            records = u64(payload, 8)
            bytes = u64(payload, 16)
        }
    }

    /// NAMES: one site's address and its "name @ file:line".
    public struct Name: Sendable {
        public var site: UInt64, text: String

        public init?(_ payload: UnsafeRawBufferPointer) {
            guard payload.count >= 12 else { return nil }
            let length = Int(u32(payload, 8))
            guard length <= payload.count - 12 else { return nil }
            site = u64(payload, 0)
            text = String(decoding: UnsafeRawBufferPointer(rebasing: payload[12 ..< 12 + length]), as: UTF8.self)
        }
    }

    /// CLOCK: a cycle-counter sample with the monotonic time it was taken at.
    public struct Clock: Sendable {
        public var ticks: UInt64, nanoseconds: UInt64

        public init?(_ payload: UnsafeRawBufferPointer) {
            guard payload.count >= 16 else { return nil }
            ticks = u64(payload, 0)
            nanoseconds = u64(payload, 8)
        }
    }

    /// END: the records written, and those dropped while recording.
    public struct End: Sendable {
        public var records: UInt64, dropped: UInt64

        public init?(_ payload: UnsafeRawBufferPointer) {
            guard payload.count >= 16 else { return nil }
            records = u64(payload, 0)
            dropped = u64(payload, 8)
        }
    }

    /// SPAN: the span's token, the phase, and its details' bytes (SpanDetails).
    public struct Span {
        public var token: UInt64, phase: UInt32, details: UnsafeRawBufferPointer

        public init?(_ payload: UnsafeRawBufferPointer) {
            guard payload.count >= TraceLayout.spanHeaderSize else { return nil }
            let length = Int(u32(payload, 12))
            guard length <= payload.count - TraceLayout.spanHeaderSize else { return nil }
            token = u64(payload, 0)
            phase = u32(payload, 8)
            details = UnsafeRawBufferPointer(
                rebasing: payload[TraceLayout.spanHeaderSize ..< TraceLayout.spanHeaderSize + length])
        }
    }

    /// WATERMARK: every later record is at or after these ticks.
    @inlinable public static func watermark(_ payload: UnsafeRawBufferPointer) -> UInt64? {
        payload.count >= 8 ? u64(payload, 0) : nil
    }

    @usableFromInline static func u32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @usableFromInline static func u64(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
}
