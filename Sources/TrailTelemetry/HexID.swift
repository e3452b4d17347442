import TrailFormat

/// Trace and span ids exactly as Docs/trace-format.md ("Span and trace ids") defines them, so the spans an
/// exporter derives from a trace and the logger's JSON lines name the same calls.
public protocol HexID {
    /// Lowercase hex, big-endian: 32 digits for a trace id, 16 for a span id.
    var hex: String { get }
}

/// 16 bytes; all zero is invalid in OTLP.
public struct TraceID: HexID, Hashable, Sendable {
    public var bytes: [UInt8]

    public init(bytes: [UInt8]) {
        precondition(bytes.count == 16, "a trace id has 16 bytes")
        self.bytes = bytes
    }

    /// A process's trace id: the trace header's wall-clock start (ns since the epoch), the pid, and the FNV-1a
    /// 32-bit hash of the host name, big-endian, 8 + 4 + 4 bytes.
    public static func process(wallClockStart: UInt64, pid: UInt32, host: String) -> TraceID {
        TraceID(
            bytes: bigEndianBytes(wallClockStart, 8) + bigEndianBytes(UInt64(pid), 4)
                + bigEndianBytes(UInt64(fnv1a32(host)), 4))
    }

    /// Parses 32 hex digits; nil for anything else or all zeros.
    public init?(hex text: String) {
        guard text.utf8.count == 32, let bytes = hexBytes(text), bytes.contains(where: { $0 != 0 }) else { return nil }
        self.bytes = bytes
    }

    public var hex: String { hexString(bytes) }
}

/// 8 bytes, as a big-endian 64-bit number; 0 is invalid in OTLP.
public struct SpanID: HexID, Hashable, Sendable {
    public var value: UInt64

    public init(_ value: UInt64) { self.value = value }

    /// A synchronous call: `(slot + 1) << 44 | position of its ENTER record` (bit 63 clear). Slot and position
    /// must fit their fields (slot < 2^19 - 1, position < 2^44).
    public static func synchronousCall(slot: UInt32, enterPosition: UInt64) -> SpanID {
        SpanID((UInt64(slot) + 1) << 44 | (enterPosition & (1 << 44 - 1)))
    }

    /// An async call or a tracer span: `1 << 63 | token`.
    public static func asyncCall(token: UInt64) -> SpanID { SpanID(1 << 63 | token) }

    /// A process's salt: `mix(wall-clock start) ^ mix(pid << 32 | host hash)`, with SplitMix64's finalizer as
    /// `mix`. Exported span ids are a call's id XOR its process's salt (1 if that is 0), so that the processes
    /// of one distributed trace never share a span id.
    public static func salt(wallClockStart: UInt64, pid: UInt32, host: String) -> UInt64 {
        SpanIDMath.salt(wallClockStart: wallClockStart, pid: pid, host: host)
    }

    /// The id a call (its reader span id) is exported and logged with.
    public static func exported(_ raw: UInt64, salt: UInt64) -> SpanID { SpanID(SpanIDMath.exported(raw, salt: salt)) }

    /// Parses 16 hex digits; nil for anything else or zero.
    public init?(hex text: String) {
        guard text.utf8.count == 16, let bytes = hexBytes(text) else { return nil }
        let value = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard value != 0 else { return nil }
        self.value = value
    }

    public var hex: String { hexString(bigEndianBytes(value, 8)) }
}

/// FNV-1a, 32 bits, over the UTF-8 bytes.
public func fnv1a32(_ text: String) -> UInt32 { SpanIDMath.fnv1a32(text) }

func bigEndianBytes(_ value: UInt64, _ count: Int) -> [UInt8] {
    (0 ..< count).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(count - 1 - $0))) }
}

private let hexDigits = Array("0123456789abcdef".utf8)

func hexString(_ bytes: [UInt8]) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        out.append(hexDigits[Int(byte >> 4)])
        out.append(hexDigits[Int(byte & 15)])
    }
    return String(decoding: out, as: UTF8.self)
}

func hexBytes(_ text: String) -> [UInt8]? {
    func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48 ... 57: byte - 48
        case 65 ... 70: byte - 55
        case 97 ... 102: byte - 87
        default: nil
        }
    }
    let digits = Array(text.utf8)
    guard digits.count % 2 == 0 else { return nil }
    var bytes: [UInt8] = []
    for index in stride(from: 0, to: digits.count, by: 2) {
        guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
        bytes.append(high << 4 | low)
    }
    return bytes
}
