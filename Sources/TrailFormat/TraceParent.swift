/// A W3C `traceparent` (trace context, level 1): the one parser and writer of it, for the runtime's API
/// (`Trail.TraceParent`, TrailTracing's `extract`), the INFO chunk's `traceparent` (TrailTrace, TrailTelemetry)
/// and, in C, `trace_context.c` (`TRAIL_TRACEPARENT_LENGTH` in trail_format.h). Strict everywhere: a header comes
/// from outside, and the INFO value needs no leniency, since the C writer keeps only what passes these same rules
/// and writes it as version 00.
public struct TraceParent: Sendable, Hashable {
    /// `00-<32 hex>-<16 hex>-<2 hex>`: version 00's length.
    public static var length: Int { 55 }

    /// 16 bytes, not all zero.
    public var traceID: [UInt8]
    /// Not zero.
    public var spanID: UInt64
    public var sampled: Bool

    public init(traceID: [UInt8], spanID: UInt64, sampled: Bool = true) {
        self.traceID = traceID
        self.spanID = spanID
        self.sampled = sampled
    }

    /// Version 00 exactly, or a later version's first four fields; lower-case hex, no zero ids, not version ff;
    /// spaces and tabs around it allowed. Nil for anything else, which W3C says to ignore.
    public init?(_ header: String) {
        let text = Array(header.utf8.drop { $0 == 32 || $0 == 9 }.reversed().drop { $0 == 32 || $0 == 9 }.reversed())
        func hex(_ range: Range<Int>) -> [UInt8]? {
            var bytes: [UInt8] = []
            for index in stride(from: range.lowerBound, to: range.upperBound, by: 2) {
                guard let high = nibble(text[index]), let low = nibble(text[index + 1]) else { return nil }
                bytes.append(high << 4 | low)
            }
            return bytes
        }
        func nibble(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 48 ... 57: byte - 48
            case 97 ... 102: byte - 87
            default: nil
            }
        }
        let length = Self.length
        guard text.count >= length, text[2] == 45, text[35] == 45, text[52] == 45, let version = hex(0 ..< 2)?.first,
            version != 0xff,
            version != 0 || text.count == length, text.count == length || text[length] == 45,
            let trace = hex(3 ..< 35), trace.contains(where: { $0 != 0 }), let span = hex(36 ..< 52),
            let flags = hex(53 ..< 55)
        else { return nil }
        let spanID = span.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard spanID != 0 else { return nil }
        self.init(traceID: trace, spanID: spanID, sampled: flags[0] & 1 != 0)
    }

    /// `00-<32 hex>-<16 hex>-<01|00>`.
    public var header: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = Array("00-".utf8)
        for byte in traceID { out += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
        out.append(45)
        for shift in stride(from: 60, through: 0, by: -4) { out.append(digits[Int(spanID >> UInt64(shift) & 15)]) }
        out += Array((sampled ? "-01" : "-00").utf8)
        return String(decoding: out, as: UTF8.self)
    }
}
