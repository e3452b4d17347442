/// Finds and parses every crash block in a log. Works on the log's UTF-8 bytes: a log can be large, and only
/// the blocks' lines become strings.
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

    static func parse(_ bytes: ByteLine.Bytes) -> (blocks: [CrashBlock], problems: [Problem]) {
        var blocks: [CrashBlock] = []
        var problems: [Problem] = []
        // The block being read, if `open`: not an optional, which would be copied in and out for every line.
        var block = CrashBlock(kind: .crash, version: CrashBlockSyntax.version, line: 0)
        var open = false
        func cutShort(_ reason: String) {
            problems.append(
                Problem(line: block.line, message: "\(block.kind.rawValue.lowercased()) block is cut short (\(reason))")
            )
            block.complete = false
            blocks.append(block)
        }
        var number = 0
        var start = bytes.startIndex
        while start <= bytes.endIndex {
            number += 1
            var end = start
            while end < bytes.endIndex, bytes[end] != 10 { end += 1 }
            var line = ByteLine(bytes: bytes, range: start ..< end)
            start = end + 1
            if line.last == 13 { line.range = line.range.dropLast() }
            if let (kind, version) = beginMarker(line) {
                if open { cutShort("a new block begins at line \(number)") }
                block = CrashBlock(kind: kind, version: version, line: number)
                open = version == CrashBlockSyntax.version
                if !open {
                    problems.append(
                        Problem(
                            line: number,
                            message:
                                "block format v\(version) is not supported (this trail reads v\(CrashBlockSyntax.version)); skipped"
                        ))
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

    /// For readers that stream a log a line at a time (the log exporters): the kind of block a line begins, or nil.
    public static func blockBegins(_ line: UnsafeBufferPointer<UInt8>) -> CrashBlock.Kind? {
        beginMarker(ByteLine(bytes: line, range: 0 ..< line.count))?.0
    }

    /// Whether a line ends an open block of `kind`.
    public static func blockEnds(_ line: UnsafeBufferPointer<UInt8>, _ kind: CrashBlock.Kind) -> Bool {
        isEndMarker(ByteLine(bytes: line, range: 0 ..< line.count), kind)
    }

    /// `=== TRAIL CRASH BEGIN v1 ===` -> (.crash, 1).
    static func beginMarker(_ line: ByteLine) -> (CrashBlock.Kind, Int)? {
        guard line.hasPrefix(CrashBlockSyntax.markerOpen), line.hasSuffix(CrashBlockSyntax.markerClose) else {
            return nil
        }
        let words = line.words(max: 7)
        guard words.count == 6, words[3].equals(CrashBlockSyntax.beginWord),
            let kind = CrashBlock.Kind(rawValue: words[2].string),
            words[4].first == 118, let version = words[4].dropFirst().decimal
        else { return nil }  // v1
        return (kind, version)
    }

    /// `=== TRAIL CRASH END ===` for a crash block.
    static func isEndMarker(_ line: ByteLine, _ kind: CrashBlock.Kind) -> Bool {
        let open = CrashBlockSyntax.markerOpen.utf8CodeUnitCount
        let kindLength = kind.rawValue.utf8.count
        return line.range.count == open + kindLength + CrashBlockSyntax.endTail.utf8CodeUnitCount
            && line.hasPrefix(CrashBlockSyntax.markerOpen) && line.hasSuffix(CrashBlockSyntax.endTail)
            && line.dropFirst(open).prefix(kindLength).equals(kind.rawValue)
    }

    /// Reads one line of a block; false when it is not one of the block's lines.
    static func read(_ line: ByteLine, into block: inout CrashBlock) -> Bool {
        if line.hasPrefix(CrashBlockSyntax.frame) {
            let words = line.words(max: 5)
            guard words.count >= 3, let index = words[1].decimal, let address = words[2].hexadecimal else {
                return false
            }
            block.frames.append(
                .init(
                    index: index, address: address,
                    isReturnAddress: words.count > 3 && words[3].equals(CrashBlockSyntax.returnAddress)))
            return true
        }
        if line.hasPrefix(CrashBlockSyntax.image) {
            let words = line.words(max: 5)
            guard words.count == 5, let base = words[1].hexadecimal, let end = words[2].hexadecimal else {
                return false
            }
            block.images.append(
                .init(
                    base: base, end: end, buildID: words[3].equals(CrashBlockSyntax.noBuildID) ? nil : words[3].string,
                    path: words[4].string))
            return true
        }
        if line.hasPrefix(CrashBlockSyntax.crumb) {
            let words = line.words(max: 4)
            guard words.count == 4 else { return false }
            block.breadcrumbs.append(.init(offset: words[1].string, event: words[2].string, site: words[3].string))
            return true
        }
        if line.hasPrefix(CrashBlockSyntax.open) {
            let words = line.words(max: 3)
            guard words.count == 3 else { return false }
            block.openCalls.append(words[2].string)
            return true
        }
        guard let colon = line.firstIndex(of: 58) else { return false }
        let key = line.prefix(colon - line.range.lowerBound).string
        guard CrashBlockSyntax.fieldKeys.contains(key) else { return false }
        var value = line.dropFirst(colon + 1 - line.range.lowerBound)
        while value.first == 32 { value = value.dropFirst() }
        block.fields[key] = value.string
        return true
    }
}
