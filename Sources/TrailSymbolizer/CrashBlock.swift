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

/// Finds and parses every block in a log.
public enum CrashLog {
    public struct Problem: Sendable, CustomStringConvertible {
        public var line: Int
        public var message: String
        public var description: String { "line \(line): \(message)" }
    }

    public static func parse(_ text: String) -> (blocks: [CrashBlock], problems: [Problem]) {
        var blocks: [CrashBlock] = []
        var problems: [Problem] = []
        var current: CrashBlock?
        var number = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            if let (kind, version) = beginMarker(line) {
                if var open = current {
                    problems.append(Problem(line: open.line, message: "\(open.kind.rawValue.lowercased()) block is cut short (a new block begins at line \(number))"))
                    open.complete = false
                    blocks.append(open)
                }
                current = CrashBlock(kind: kind, version: version, line: number)
                if version != 1 {
                    problems.append(Problem(line: number, message: "block format v\(version) is not supported (this trail reads v1); skipped"))
                    current = nil
                }
                continue
            }
            guard var block = current else { continue }
            if line == "=== TRAIL \(block.kind.rawValue) END ===" {
                block.complete = true
                blocks.append(block)
                current = nil
                continue
            }
            if !read(line, into: &block) { block.foreignLines.append((number, String(line))) }
            current = block
        }
        if let open = current {
            problems.append(Problem(line: open.line, message: "\(open.kind.rawValue.lowercased()) block is cut short (the log ends first)"))
            blocks.append(open)
        }
        return (blocks, problems)
    }

    /// `=== TRAIL CRASH BEGIN v1 ===` -> (.crash, 1).
    static func beginMarker(_ line: Substring) -> (CrashBlock.Kind, Int)? {
        guard line.hasPrefix("=== TRAIL "), line.hasSuffix(" ===") else { return nil }
        let parts = line.split(separator: " ")
        guard parts.count == 6, parts[3] == "BEGIN", let kind = CrashBlock.Kind(rawValue: String(parts[2])),
              parts[4].hasPrefix("v"), let version = Int(parts[4].dropFirst()) else { return nil }
        return (kind, version)
    }

    /// Reads one line of a block; false when it is not one of the block's lines.
    static func read(_ line: Substring, into block: inout CrashBlock) -> Bool {
        if line.hasPrefix("frame ") {
            let parts = line.split(separator: " ")
            guard parts.count >= 3, let index = Int(parts[1]), let address = hex(parts[2]) else { return false }
            block.frames.append(.init(index: index, address: address, isReturnAddress: parts.count > 3 && parts[3] == "ra"))
            return true
        }
        if line.hasPrefix("image ") {
            let parts = line.split(separator: " ", maxSplits: 4)
            guard parts.count == 5, let base = hex(parts[1]), let end = hex(parts[2]) else { return false }
            block.images.append(.init(base: base, end: end, buildID: parts[3] == "-" ? nil : String(parts[3]), path: String(parts[4])))
            return true
        }
        if line.hasPrefix("crumb ") {
            let parts = line.split(separator: " ", maxSplits: 3)
            guard parts.count == 4 else { return false }
            block.breadcrumbs.append(.init(offset: String(parts[1]), event: String(parts[2]), site: String(parts[3])))
            return true
        }
        if line.hasPrefix("open ") {
            let parts = line.split(separator: " ", maxSplits: 2)
            guard parts.count == 3 else { return false }
            block.openCalls.append(String(parts[2]))
            return true
        }
        guard let colon = line.firstIndex(of: ":") else { return false }
        let key = String(line[..<colon])
        guard ["time", "app", "pid", "exe", "signal", "reason", "thread", "trace"].contains(key) else { return false }
        block.fields[key] = String(line[line.index(after: colon)...].drop { $0 == " " })
        return true
    }

    static func hex(_ text: Substring) -> UInt64? {
        guard text.hasPrefix("0x") else { return nil }
        return UInt64(text.dropFirst(2), radix: 16)
    }
}
