#if canImport(Glibc)
import Glibc
#endif

/// Buffered bytes for output that can run to gigabytes: flushed to a file descriptor as it fills, or kept
/// whole (`descriptor` nil) for tests and small results.
public final class TextOutput {
    private var bytes: [UInt8] = []
    private let descriptor: Int32?
    private static let flushSize = 1 << 20
    /// The first write error, if any (a closed pipe, a full disk).
    public private(set) var failure: Int32?

    public init(descriptor: Int32? = nil) {
        self.descriptor = descriptor
        bytes.reserveCapacity(descriptor == nil ? 4096 : Self.flushSize + 4096)
    }

    @inline(__always) public func append(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
        if bytes.count >= Self.flushSize { flush() }
    }

    @inline(__always) public func append(byte: UInt8) { bytes.append(byte) }

    public func append(spaces count: Int) {
        if count > 0 { bytes.append(contentsOf: repeatElement(0x20, count: count)) }
    }

    /// `value` right-aligned in `width` columns.
    public func append(_ value: UInt64, width: Int = 0) {
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { raw in
            repeat {
                raw[19 - count] = UInt8(48 + rest % 10)
                rest /= 10
                count += 1
            } while rest > 0
            append(spaces: width - count)
            bytes.append(contentsOf: raw[(20 - count)...])
        }
    }

    /// Nanoseconds as uftrace prints a duration: `%7.3f` and a unit (us, ms, s), ten columns.
    public func append(duration nanoseconds: Double) {
        let ns = nanoseconds < 0 ? 0 : nanoseconds
        let (scaled, unit): (UInt64, StaticString) =
            switch ns {
            case ..<999_999.5: (UInt64(ns.rounded()), "us")
            case ..<999_999_500: (UInt64((ns / 1e3).rounded()), "ms")
            default: (UInt64((ns / 1e6).rounded()), " s")
            }
        append(scaled / 1000, width: 3)
        bytes.append(0x2E)
        let fraction = scaled % 1000
        bytes.append(UInt8(48 + fraction / 100))
        bytes.append(UInt8(48 + fraction / 10 % 10))
        bytes.append(UInt8(48 + fraction % 10))
        bytes.append(0x20)
        bytes.append(contentsOf: UnsafeBufferPointer(start: unit.utf8Start, count: unit.utf8CodeUnitCount))
    }

    public func flush() {
        guard let descriptor, !bytes.isEmpty else { return }
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count, failure == nil {
                let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                } else {
                    offset += written
                }
            }
        }
        bytes.removeAll(keepingCapacity: true)
    }

    /// What was kept (without a descriptor).
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}
