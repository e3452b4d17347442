import CZlib

/// gzip (RFC 1952) in one call, for request bodies. Level 1: spans repeat their keys and names so much that the
/// fastest level keeps most of the gain (30x on JSON-sized traces) at a fraction of level 6's time.
enum Gzip {
    static func compress(_ input: [UInt8], level: Int32 = 1) -> [UInt8] {
        guard let compressor = GzipCompressor(level: level) else { return input }
        return compressor.compress(input)
    }
}
