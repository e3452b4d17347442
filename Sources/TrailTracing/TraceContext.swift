#if TrailTracing
public import ServiceContextModule

/// The span a `ServiceContext` carries: one of TrailTracer's spans, or a parent from another process (an
/// extracted W3C `traceparent`). Ids are as exported (Docs/trace-format.md, "Span and trace ids").
public struct TrailSpanContext: Sendable, Hashable {
    /// 16 bytes.
    public var traceID: [UInt8]
    public var spanID: UInt64
    public var sampled: Bool
    /// From another process: extracted, not started here.
    public var isRemote: Bool
    /// The W3C `tracestate` that came with it, handed on as is.
    public var traceState: String?
    /// A span started here: its reader span id in this process's trace (0: not recorded), and the exported id
    /// of the traced call that was innermost when it started (0: none), so `inject` can tell whether a traced
    /// call made inside it is the innermost now.
    var readerSpanID: UInt64 = 0
    var flowParent: UInt64 = 0

    public init(traceID: [UInt8], spanID: UInt64, sampled: Bool = true, isRemote: Bool = false, traceState: String? = nil) {
        self.traceID = traceID
        self.spanID = spanID
        self.sampled = sampled
        self.isRemote = isRemote
        self.traceState = traceState
    }

    /// `00-<trace id>-<span id>-<flags>`.
    public var traceparent: String {
        "00-" + Hex.string(traceID) + "-" + Hex.string(spanID) + (sampled ? "-01" : "-00")
    }

    /// Parses a W3C `traceparent` (version 00, or a later version's first four fields); nil for anything the
    /// recommendation says to ignore: wrong lengths, upper-case or non-hex digits, version ff, zero ids.
    public init?(traceparent: String, traceState: String? = nil) {
        let fields = traceparent.split(separator: "-", omittingEmptySubsequences: false)
        guard fields.count >= 4, fields[0].utf8.count == 2, fields[1].utf8.count == 32, fields[2].utf8.count == 16,
              fields[3].utf8.count == 2, let version = Hex.bytes(fields[0]), version[0] != 0xff,
              version[0] != 0 || fields.count == 4,
              let trace = Hex.bytes(fields[1]), trace.contains(where: { $0 != 0 }),
              let span = Hex.bytes(fields[2]), let flags = Hex.bytes(fields[3]) else { return nil }
        let spanID = span.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard spanID != 0 else { return nil }
        self.init(traceID: trace, spanID: spanID, sampled: flags[0] & 1 != 0, isRemote: true, traceState: traceState)
    }
}

/// The key under which a `ServiceContext` carries a `TrailSpanContext`.
public enum TrailSpanContextKey: ServiceContextKey {
    public typealias Value = TrailSpanContext
    public static var nameOverride: String? { "trail-span-context" }
}

extension ServiceContext {
    /// The span this context carries, if TrailTracer started or extracted one.
    public var trailSpanContext: TrailSpanContext? {
        get { self[TrailSpanContextKey.self] }
        set { self[TrailSpanContextKey.self] = newValue }
    }
}

/// Lower-case hex, as W3C trace context requires.
enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    static func string(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func string(_ value: UInt64) -> String {
        string((0 ..< 8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) })
    }

    static func bytes(_ text: Substring) -> [UInt8]? {
        func nibble(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 48 ... 57: byte - 48
            case 97 ... 102: byte - 87
            default: nil
            }
        }
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        for index in stride(from: 0, to: utf8.count, by: 2) {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
        }
        return out
    }
}
#endif
