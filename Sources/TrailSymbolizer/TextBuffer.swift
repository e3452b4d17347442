/// Small text helpers for the output formats. They count UTF-8 bytes, not characters: what they pad is ASCII
/// (numbers, addresses, event names), and counting characters is many times slower.
extension String {
    /// `count` copies of an ASCII byte (`String(repeating:count:)` costs thousands of instructions a call).
    init(ascii byte: UInt8, count: Int) {
        let count = Swift.max(0, count)
        self.init(unsafeUninitializedCapacity: count) { buffer in
            buffer.initialize(repeating: byte)
            return count
        }
    }

    func leftPadded(_ width: Int, with pad: Character = "0") -> String {
        let missing = width - utf8.count
        return missing <= 0 ? self : String(ascii: pad.asciiValue ?? 32, count: missing) + self
    }

    /// Padded with spaces to `width`, and at least one space after.
    func padding(_ width: Int) -> String {
        self + String(ascii: 32, count: Swift.max(1, width - utf8.count))
    }
}

extension Array where Element == String {
    /// `joined(separator:)` without its generic path, whose first call alone costs some 90,000 instructions.
    func joined(with separator: String) -> String {
        var out = ""
        for index in indices {
            if index > 0 { out += separator }
            out += self[index]
        }
        return out
    }
}

func appendDecimal(_ value: Int, to out: inout [UInt8]) {
    if value < 0 { out.append(45) }
    appendDecimal(UInt64(value.magnitude), to: &out)
}

func appendDecimal(_ value: UInt64, to out: inout [UInt8]) {
    if value >= 10 { appendDecimal(value / 10, to: &out) }
    out.append(UInt8(48 + value % 10))
}

/// Output built as UTF-8 bytes: appending to an array is a copy, where each String append or interpolation
/// costs hundreds of instructions, and a crash's stack is hundreds of pieces.
struct TextBuffer {
    var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    var string: String { String(decoding: bytes, as: UTF8.self) }

    mutating func add(_ text: String) { bytes.append(contentsOf: text.utf8) }

    mutating func add(_ number: Int) { appendDecimal(number, to: &bytes) }

    mutating func add(_ number: UInt64) { appendDecimal(number, to: &bytes) }

    mutating func spaces(_ count: Int) { bytes.append(contentsOf: repeatElement(32, count: Swift.max(0, count))) }

    /// A number right-aligned in `width` columns.
    mutating func add(_ number: Int, width: Int) {
        var digits = 1
        var rest = number.magnitude
        while rest >= 10 {
            digits += 1
            rest /= 10
        }
        spaces(width - digits - (number < 0 ? 1 : 0))
        add(number)
    }

    /// `0x` and 16 hexadecimal digits.
    mutating func hex(_ value: UInt64) {
        bytes.append(48)
        bytes.append(120)
        for shift in stride(from: 60, through: 0, by: -4) {
            let digit = UInt8((value >> UInt64(shift)) & 0xf)
            bytes.append(digit < 10 ? 48 + digit : 87 + digit)
        }
    }
}
