import CZlib

/// OTEL_EXPORTER_OTLP_COMPRESSION's values.
public enum OTLPCompression: String, Sendable {
    case none, gzip
}

/// gzip (RFC 1952) in one call, for request bodies. Level 1: spans repeat their keys and names so much that the
/// fastest level keeps most of the gain (30x on JSON-sized traces) at a fraction of level 6's time.
enum Gzip {
    static func compress(_ input: [UInt8], level: Int32 = 1) -> [UInt8] {
        guard let compressor = GzipCompressor(level: level) else { return input }
        return compressor.compress(input)
    }
}

/// gzip for one request body after another: one deflate state, reset between bodies rather than set up (its
/// 256 KiB of tables allocated and cleared) for each, and output written into an array left uninitialized.
/// The bytes are those of `Gzip.compress`.
final class GzipCompressor {
    private var stream = z_stream()

    init?(level: Int32 = 1) {
        // windowBits 15 + 16: a gzip header and trailer rather than zlib's.
        guard
            deflateInit2_(
                &stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return nil }
    }

    deinit { deflateEnd(&stream) }

    /// `input` gzipped; `input` itself if deflate fails.
    func compress(_ input: [UInt8]) -> [UInt8] {
        guard deflateReset(&stream) == Z_OK else { return input }
        let bound = Int(deflateBound(&stream, uLong(input.count))) + 32
        var status = Z_OK
        let output = input.withUnsafeBufferPointer { source in
            [UInt8](unsafeUninitializedCapacity: bound) { target, count in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                status = deflate(&stream, Z_FINISH)
                count = status == Z_STREAM_END ? Int(stream.total_out) : 0
            }
        }
        return status == Z_STREAM_END ? output : input
    }
}

/// Reads protobuf fields: for the receiver's answers (partial success).
struct ProtobufReader {
    enum Value {
        case varint(UInt64)
        case bytes(ArraySlice<UInt8>)
        case fixed
    }
    var bytes: ArraySlice<UInt8>

    mutating func varint() -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while let byte = bytes.popFirst() {
            value |= UInt64(byte & 0x7f) << shift
            if byte < 0x80 { return value }
            shift += 7
            if shift > 63 { return nil }
        }
        return nil
    }

    mutating func next() -> (field: UInt64, value: Value)? {
        guard let key = varint() else { return nil }
        switch key & 7 {
        case 0: return varint().map { (key >> 3, .varint($0)) }
        case 1:
            guard bytes.count >= 8 else { return nil }
            bytes.removeFirst(8)
            return (key >> 3, .fixed)
        case 5:
            guard bytes.count >= 4 else { return nil }
            bytes.removeFirst(4)
            return (key >> 3, .fixed)
        case 2:
            guard let length = varint(), length <= UInt64(bytes.count) else { return nil }
            let value = bytes.prefix(Int(length))
            bytes.removeFirst(Int(length))
            return (key >> 3, .bytes(value))
        default: return nil
        }
    }
}
