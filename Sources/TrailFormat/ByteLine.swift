/// A line of a log, or part of one, as a range of the log's UTF-8 bytes: what the crash block parser works on,
/// so that a large log costs no strings but for its blocks' lines.
struct ByteLine {
    typealias Bytes = UnsafeBufferPointer<UInt8>
    let bytes: Bytes
    var range: Range<Int>

    var first: UInt8? { range.isEmpty ? nil : bytes[range.lowerBound] }
    var last: UInt8? { range.isEmpty ? nil : bytes[range.upperBound - 1] }
    var string: String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }

    func dropFirst(_ count: Int = 1) -> ByteLine {
        ByteLine(bytes: bytes, range: min(range.lowerBound + count, range.upperBound) ..< range.upperBound)
    }
    func prefix(_ count: Int) -> ByteLine {
        ByteLine(bytes: bytes, range: range.lowerBound ..< min(range.lowerBound + count, range.upperBound))
    }

    func equals(_ text: StaticString) -> Bool { range.count == text.utf8CodeUnitCount && hasPrefix(text) }
    func equals(_ text: String) -> Bool { range.count == text.utf8.count && bytes[range].elementsEqual(text.utf8) }

    func hasPrefix(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        return range.count >= count && same(at: range.lowerBound, text.utf8Start, count)
    }

    func hasSuffix(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        return range.count >= count && same(at: range.upperBound - count, text.utf8Start, count)
    }

    /// Whether the `count` bytes at `start` are those at `text`.
    private func same(at start: Int, _ text: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        let base = bytes.baseAddress! + start
        for index in 0 ..< count where base[index] != text[index] { return false }
        return true
    }

    func firstIndex(of byte: UInt8) -> Int? { bytes[range].firstIndex(of: byte) }

    /// Words split at runs of spaces, the last of `max` taking the rest of the line.
    func words(max: Int) -> [ByteLine] {
        var words: [ByteLine] = []
        words.reserveCapacity(max)
        var position = range.lowerBound
        while position < range.upperBound {
            while position < range.upperBound, bytes[position] == 32 { position += 1 }
            guard position < range.upperBound else { break }
            if words.count == max - 1 {
                words.append(ByteLine(bytes: bytes, range: position ..< range.upperBound))
                break
            }
            let start = position
            while position < range.upperBound, bytes[position] != 32 { position += 1 }
            words.append(ByteLine(bytes: bytes, range: start ..< position))
        }
        return words
    }

    /// A decimal number, as `Int("...")` reads it.
    var decimal: Int? {
        var digits = self
        let negative = first == 45
        if negative || first == 43 { digits = digits.dropFirst() }
        guard !digits.range.isEmpty, digits.range.count <= 18 else { return nil }
        var value = 0
        for index in digits.range {
            let byte = bytes[index]
            guard byte >= 48, byte <= 57 else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        return negative ? -value : value
    }

    /// `0x` and 1 to 16 hexadecimal digits.
    var hexadecimal: UInt64? {
        guard hasPrefix("0x"), range.count > 2, range.count <= 18 else { return nil }
        var value: UInt64 = 0
        for index in range.dropFirst(2) {
            let byte = bytes[index]
            switch byte {
            case 48 ... 57: value = value << 4 | UInt64(byte - 48)
            case 65 ... 70: value = value << 4 | UInt64(byte - 55)
            case 97 ... 102: value = value << 4 | UInt64(byte - 87)
            default: return nil
            }
        }
        return value
    }
}
