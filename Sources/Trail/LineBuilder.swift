internal import CTrailShim
internal import TrailFormat

#if canImport(Glibc)
internal import Glibc
#endif

/// A line assembled in caller-provided scratch memory, moving to the heap only if it outgrows it.
struct LineBuilder {
    private let scratch: UnsafeMutableBufferPointer<UInt8>
    private var count = 0
    private var spill: [UInt8]?

    init(_ scratch: UnsafeMutableBufferPointer<UInt8>) { self.scratch = scratch }

    /// The timestamp goes first; formatted in place by the C shim's per-thread cache.
    mutating func reserveTimestamp() {
        count = trail_format_timestamp(
            UnsafeMutableRawPointer(scratch.baseAddress!).assumingMemoryBound(to: CChar.self))
    }

    /// `{"time":"<RFC 3339 with nanoseconds>"`: a JSON line's start.
    mutating func reserveJSONTimestamp() {
        append(LogLineFormat.time.field)
        append("\"")
        count += trail_format_timestamp_ns(
            UnsafeMutableRawPointer(scratch.baseAddress! + count).assumingMemoryBound(to: CChar.self))
        append("\"")
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafePointer<UInt8>, _ length: Int) {
        guard spill == nil, count + length <= scratch.count else { return appendSpilling(bytes, length) }
        let target = scratch.baseAddress! + count
        // Short pieces are copied inline: a call to memmove costs more than the copy.
        if length <= 16 {
            for index in 0 ..< length { target[index] = bytes[index] }
        } else {
            target.update(from: bytes, count: length)
        }
        count += length
    }

    private mutating func appendSpilling(_ bytes: UnsafePointer<UInt8>, _ length: Int) {
        if spill == nil { spill = Array(scratch[0 ..< count]) }
        spill!.append(contentsOf: UnsafeBufferPointer(start: bytes, count: length))
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        append(base.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    mutating func append(_ text: StaticString) {
        append(text.utf8Start, text.utf8CodeUnitCount)
    }

    mutating func append(_ text: String) {
        if let done = text.utf8.withContiguousStorageIfAvailable({ append($0.baseAddress!, $0.count) }) { return done }
        // A small string (up to 15 bytes: most labels, keys and values) lives inline, with no storage to point
        // at: its bytes are copied one by one rather than through a temporary copy.
        let length = text.utf8.count
        guard spill == nil, count + length <= scratch.count else {
            var copy = text
            return copy.withUTF8 { append($0.baseAddress!, $0.count) }
        }
        var index = count
        for byte in text.utf8 {
            scratch[index] = byte
            index += 1
        }
        count = index
    }

    mutating func append(_ value: Int) {
        if spill == nil, count + 20 <= scratch.count {
            count += formatDecimal(value, into: scratch.baseAddress! + count)
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { digits in
            append(digits.baseAddress!, formatDecimal(value, into: digits.baseAddress!))
        }
    }

    /// Bytes appended so far.
    var length: Int { spill?.count ?? count }

    /// Escapes what was appended since `start` as the inside of a JSON string. Most text needs no escape, so
    /// the bytes are only scanned; a piece that does is rewritten.
    mutating func escapeJSON(from start: Int) {
        let plain = withBytes { bytes in !bytes[start...].contains { $0 < 32 || $0 == 34 || $0 == 92 } }
        guard !plain else { return }
        var escaped: [UInt8] = []
        withBytes { JSONString.appendEscaped($0[start...], to: &escaped) }
        if spill != nil { spill!.removeSubrange(start...) } else { count = start }
        escaped.withUnsafeBytes { append($0) }
    }

    /// A text log is a line per record: a line break in a value appended since `start` continues on a line
    /// indented by two spaces, so that nothing a program logs can pass for the lines of a crash block; other
    /// control bytes (ESC, NUL, ...) become `\xHH`, so that a log shown in a terminal cannot drive it.
    mutating func escapeControls(from start: Int) {
        func isControl(_ byte: UInt8) -> Bool { (byte < 32 && byte != 9) || byte == 127 }
        guard
            withBytes({
                Self.mayHaveControls(UnsafeRawBufferPointer(rebasing: $0[start...]))
                    && $0[start...].contains(where: isControl)
            })
        else { return }
        var escaped: [UInt8] = []
        let digits = Array("0123456789abcdef".utf8)
        withBytes { bytes in
            let tail = bytes[start...]
            for index in tail.indices {
                let byte = tail[index]
                if byte == 10 {
                    escaped += [10, 32, 32]
                } else if byte == 13, index + 1 < tail.endIndex, tail[index + 1] == 10 {
                    continue
                } else if isControl(byte) {
                    escaped += [92, 120, digits[Int(byte >> 4)], digits[Int(byte & 15)]]
                } else {
                    escaped.append(byte)
                }
            }
        }
        if spill != nil { spill!.removeSubrange(start...) } else { count = start }
        escaped.withUnsafeBytes { append($0) }
    }

    /// Eight bytes at a time: false when no byte is below 32 or is 127 (a tab gives true; the caller looks
    /// closer). Every logged line is scanned, so this is the whole cost for ordinary text.
    @inline(__always)
    static func mayHaveControls(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            let below32 = (word &- ones &* 32) & ~word & highs
            let flipped = word ^ (ones &* 127)
            let equal127 = (flipped &- ones) & ~flipped & highs
            if below32 | equal127 != 0 { return true }
            offset += 8
        }
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte < 32 || byte == 127 { return true }
            offset += 1
        }
        return false
    }

    func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        if let spill { return spill.withUnsafeBytes(body) }
        return body(UnsafeRawBufferPointer(start: scratch.baseAddress, count: count))
    }
}
