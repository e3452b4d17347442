import CZlib

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
