#if canImport(Glibc)
import Glibc
#endif

/// A crash (or reported error) block as the runtime writes it into a log (Docs/crash-format.md), read back
/// from text that may hold anything else around it, other threads' lines inside it, or be cut short.
public struct CrashBlock: Sendable {
    public enum Kind: String, Sendable { case crash = "CRASH", error = "ERROR" }

    public struct Frame: Sendable {
        public var index: Int
        public var address: UInt64
        /// A return address: the call is the instruction before it, so lookups use `address - 1`.
        public var isReturnAddress: Bool
    }

    public struct Image: Sendable {
        public var base: UInt64
        public var end: UInt64
        public var buildID: String?
        public var path: String
    }

    public struct Breadcrumb: Sendable {
        /// Microseconds before the crash (negative).
        public var offset: String
        /// enter, exit, async-enter, async-exit
        public var event: String
        public var site: String
    }

    public var kind: Kind
    public var version: Int
    /// 1-based line of the begin marker in the log.
    public var line: Int
    /// False when the log ends, or another block begins, before this block's end marker.
    public var complete = false
    public var fields: [String: String] = [:]
    public var frames: [Frame] = []
    public var images: [Image] = []
    public var breadcrumbs: [Breadcrumb] = []
    public var openCalls: [String] = []
    /// Lines inside the block that are not part of its format (say, another thread's output), with their line.
    public var foreignLines: [(Int, String)] = []

    public var time: String? { fields["time"] }
    public var app: String? { fields["app"] }
    public var pid: String? { fields["pid"] }
    public var executable: String? { fields["exe"] }
    public var reason: String? { fields["reason"] }
    public var trace: String? { fields["trace"] }

    /// `11 SIGSEGV code 1 SEGV_MAPERR address 0x8` split up.
    public var signal: (number: Int, name: String, code: String?, address: String?)? {
        guard let text = fields["signal"] else { return nil }
        let parts = text.split(separator: " ").map(String.init)
        guard parts.count >= 2, let number = Int(parts[0]) else { return nil }
        var code: String?, address: String?
        if let index = parts.firstIndex(of: "code"), index + 2 < parts.count { code = parts[index + 2] }
        if let index = parts.firstIndex(of: "address"), index + 1 < parts.count { address = parts[index + 1] }
        return (number, parts[1], code, address)
    }

    /// `4242 worker`.
    public var thread: (tid: String, name: String)? {
        guard let text = fields["thread"] else { return nil }
        let parts = text.split(separator: " ", maxSplits: 1).map(String.init)
        return (parts.first ?? "", parts.count > 1 ? parts[1] : "")
    }

    public func image(containing address: UInt64) -> Image? {
        images.first { address >= $0.base && address < $0.end }
    }
}

/// Finds and parses every block in a log. Works on the log's UTF-8 bytes: a log can be large, and only the
/// blocks' lines become strings.
public enum CrashLog {
    public struct Problem: Sendable, CustomStringConvertible {
        public var line: Int
        public var message: String
        public var description: String { "line \(line): \(message)" }
    }

    public static func parse(_ text: String) -> (blocks: [CrashBlock], problems: [Problem]) {
        var text = text
        return text.withUTF8 { parse($0) }
    }

    static func parse(_ bytes: Line.Bytes) -> (blocks: [CrashBlock], problems: [Problem]) {
        var blocks: [CrashBlock] = []
        var problems: [Problem] = []
        // The block being read, if `open`: not an optional, which would be copied in and out for every line.
        var block = CrashBlock(kind: .crash, version: 1, line: 0)
        var open = false
        func cutShort(_ reason: String) {
            problems.append(Problem(line: block.line, message: "\(block.kind.rawValue.lowercased()) block is cut short (\(reason))"))
            block.complete = false
            blocks.append(block)
        }
        var number = 0
        var start = bytes.startIndex
        while start <= bytes.endIndex {
            number += 1
            var end = start
            while end < bytes.endIndex, bytes[end] != 10 { end += 1 }
            var line = Line(bytes: bytes, range: start ..< end)
            start = end + 1
            if line.last == 13 { line.range = line.range.dropLast() }
            if let (kind, version) = beginMarker(line) {
                if open { cutShort("a new block begins at line \(number)") }
                block = CrashBlock(kind: kind, version: version, line: number)
                open = version == 1
                if !open {
                    problems.append(Problem(line: number, message: "block format v\(version) is not supported (this trail reads v1); skipped"))
                }
                continue
            }
            guard open else { continue }
            if isEndMarker(line, block.kind) {
                block.complete = true
                blocks.append(block)
                open = false
                continue
            }
            if !read(line, into: &block) { block.foreignLines.append((number, line.string)) }
        }
        if open { cutShort("the log ends first") }
        return (blocks, problems)
    }

    /// `=== TRAIL CRASH BEGIN v1 ===` -> (.crash, 1).
    static func beginMarker(_ line: Line) -> (CrashBlock.Kind, Int)? {
        guard line.hasPrefix("=== TRAIL "), line.hasSuffix(" ===") else { return nil }
        let words = line.words(max: 7)
        guard words.count == 6, words[3].equals("BEGIN"), let kind = CrashBlock.Kind(rawValue: words[2].string),
              words[4].first == 118, let version = words[4].dropFirst().decimal else { return nil }
        return (kind, version)
    }

    /// `=== TRAIL CRASH END ===` for a crash block.
    static func isEndMarker(_ line: Line, _ kind: CrashBlock.Kind) -> Bool {
        line.range.count == 23 && line.hasPrefix("=== TRAIL ") && line.hasSuffix(" END ===")
            && line.dropFirst(10).prefix(5).equals(kind.rawValue)
    }

    private static let fieldKeys = ["time", "app", "pid", "exe", "signal", "reason", "thread", "trace"]

    /// Reads one line of a block; false when it is not one of the block's lines.
    static func read(_ line: Line, into block: inout CrashBlock) -> Bool {
        if line.hasPrefix("frame ") {
            let words = line.words(max: 5)
            guard words.count >= 3, let index = words[1].decimal, let address = words[2].hexadecimal else { return false }
            block.frames.append(.init(index: index, address: address, isReturnAddress: words.count > 3 && words[3].equals("ra")))
            return true
        }
        if line.hasPrefix("image ") {
            let words = line.words(max: 5)
            guard words.count == 5, let base = words[1].hexadecimal, let end = words[2].hexadecimal else { return false }
            block.images.append(.init(base: base, end: end, buildID: words[3].equals("-") ? nil : words[3].string, path: words[4].string))
            return true
        }
        if line.hasPrefix("crumb ") {
            let words = line.words(max: 4)
            guard words.count == 4 else { return false }
            block.breadcrumbs.append(.init(offset: words[1].string, event: words[2].string, site: words[3].string))
            return true
        }
        if line.hasPrefix("open ") {
            let words = line.words(max: 3)
            guard words.count == 3 else { return false }
            block.openCalls.append(words[2].string)
            return true
        }
        guard let colon = line.firstIndex(of: 58) else { return false }
        let key = line.prefix(colon - line.range.lowerBound).string
        guard fieldKeys.contains(key) else { return false }
        var value = line.dropFirst(colon + 1 - line.range.lowerBound)
        while value.first == 32 { value = value.dropFirst() }
        block.fields[key] = value.string
        return true
    }

    /// A line, or part of one, as a range of the log's bytes.
    struct Line {
        typealias Bytes = UnsafeBufferPointer<UInt8>
        let bytes: Bytes
        var range: Range<Int>

        var first: UInt8? { range.isEmpty ? nil : bytes[range.lowerBound] }
        var last: UInt8? { range.isEmpty ? nil : bytes[range.upperBound - 1] }
        var string: String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }

        func dropFirst(_ count: Int = 1) -> Line { Line(bytes: bytes, range: min(range.lowerBound + count, range.upperBound) ..< range.upperBound) }
        func prefix(_ count: Int) -> Line { Line(bytes: bytes, range: range.lowerBound ..< min(range.lowerBound + count, range.upperBound)) }

        func equals(_ text: StaticString) -> Bool { range.count == text.utf8CodeUnitCount && hasPrefix(text) }
        func equals(_ text: String) -> Bool { range.count == text.utf8.count && bytes[range].elementsEqual(text.utf8) }

        func hasPrefix(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard range.count >= count else { return false }
            return memcmp(bytes.baseAddress! + range.lowerBound, text.utf8Start, count) == 0
        }

        func hasSuffix(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard range.count >= count else { return false }
            return memcmp(bytes.baseAddress! + range.upperBound - count, text.utf8Start, count) == 0
        }

        func firstIndex(of byte: UInt8) -> Int? { bytes[range].firstIndex(of: byte) }

        /// Words split at runs of spaces, the last of `max` taking the rest of the line.
        func words(max: Int) -> [Line] {
            var words: [Line] = []
            words.reserveCapacity(max)
            var position = range.lowerBound
            while position < range.upperBound {
                while position < range.upperBound, bytes[position] == 32 { position += 1 }
                guard position < range.upperBound else { break }
                if words.count == max - 1 {
                    words.append(Line(bytes: bytes, range: position ..< range.upperBound))
                    break
                }
                let start = position
                while position < range.upperBound, bytes[position] != 32 { position += 1 }
                words.append(Line(bytes: bytes, range: start ..< position))
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
}
