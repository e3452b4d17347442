import Foundation

/// A growable byte buffer that protobuf messages of a known size are written into in place, through a
/// `ProtobufCursor`: no per-byte capacity or uniqueness checks, no scratch copy. OTLPWriter keeps one per
/// request for its items.
public final class ProtobufBytes {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 1 << 16) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Makes room for `size` more bytes and counts them: the caller writes exactly them at the pointer returned.
    func extend(by size: Int) -> UnsafeMutablePointer<UInt8> {
        if count + size > capacity {
            var grown = capacity * 2
            while grown < count + size { grown *= 2 }
            let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
            moved.update(from: base, count: count)
            base.deallocate()
            base = moved
            capacity = grown
        }
        defer { count += size }
        return base + count
    }

    /// `size` bytes framed as field `field` (tag, length, then them), the bytes written by `write`.
    func append(field: UInt64, size: Int, _ write: (inout ProtobufCursor) -> Void) {
        var out = ProtobufCursor(at: extend(by: ProtobufSize.framed(size)))
        out.header(field, size: size)
        let end = out.at + size
        write(&out)
        precondition(out.at == end, "a protobuf message's computed size disagrees with what was written")
    }

    func removeAll() { count = 0 }

    /// Bytes `range`, valid until the buffer next grows or is cleared.
    func bytes(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base + range.lowerBound, count: range.count)
    }
}

extension [UInt8] {
    /// `size` bytes of protobuf, written in place by `write`.
    init(protobufSize size: Int, _ write: (inout ProtobufCursor) -> Void) {
        self.init(unsafeUninitializedCapacity: size) { buffer, count in
            if size > 0 {
                var out = ProtobufCursor(at: buffer.baseAddress!)
                write(&out)
                precondition(
                    out.at == buffer.baseAddress! + size,
                    "a protobuf message's computed size disagrees with what was written")
            }
            count = size
        }
    }
}
