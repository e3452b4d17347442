/// What a file declares that changes how bodies are rewritten, in that file and in the others of its module:
/// functions returning `Never` and `@resultBuilder` types.
public struct Declarations: Equatable, Sendable {
    public var neverReturning: Set<String> = []
    public var resultBuilders: Set<String> = []

    public init(neverReturning: Set<String> = [], resultBuilders: Set<String> = []) {
        self.neverReturning = neverReturning
        self.resultBuilders = resultBuilders
    }

    /// The declarations in one file's text, found by `DeclarationScan`.
    public init(scanning source: [UInt8]) {
        self.init(neverReturning: DeclarationScan.neverReturning(in: source),
                  resultBuilders: DeclarationScan.resultBuilders(in: source))
    }

    /// All that any of `parts` declares.
    public init(merging parts: [Declarations]) {
        for part in parts {
            neverReturning.formUnion(part.neverReturning)
            resultBuilders.formUnion(part.resultBuilders)
        }
    }
}

/// Finds declarations that change how bodies are rewritten, by a textual scan that is cheap next to parsing,
/// so that a whole tree can be scanned before any file is rewritten.
enum DeclarationScan {
    /// `@resultBuilder` types: their attribute marks bodies that must not get statements.
    static func resultBuilders(in source: [UInt8]) -> Set<String> {
        var names: Set<String> = []
        let attribute = Array("@resultBuilder".utf8)
        let keywords = ["struct ", "enum ", "class ", "actor "].map { Array($0.utf8) }
        var index = 0
        while let hit = find(attribute, in: source, from: index) {
            index = hit + attribute.count
            // The type keyword follows within the attribute list and modifiers.
            var cursor = index
            while cursor < min(source.count, index + 300) {
                if let keyword = keywords.first(where: { matches($0, in: source, at: cursor) }),
                   cursor == 0 || !isIdentifierByte(source, at: cursor - 1) {
                    var end = cursor + keyword.count
                    while end < source.count, source[end] == UInt8(ascii: " ") { end += 1 }
                    let start = end
                    while isIdentifierByte(source, at: end) { end += 1 }
                    if end > start { names.insert(String(decoding: source[start ..< end], as: UTF8.self)) }
                    break
                }
                cursor += 1
            }
        }
        return names
    }

    /// `func name(...) -> Never`: a lone call to one is not a value, so it must not become `return name()`.
    static func neverReturning(in source: [UInt8]) -> Set<String> {
        var names: Set<String> = []
        let never = Array("Never".utf8), funcKeyword = Array("func ".utf8)
        var index = 0
        while let hit = find(never, in: source, from: index) {
            index = hit + never.count
            guard isArrowBefore(hit, source), !isIdentifierByte(source, at: index) else { continue }
            // The nearest `func ` before the arrow, within one signature's length.
            var back = hit - 1
            while back >= max(0, hit - 600), !matches(funcKeyword, in: source, at: back) { back -= 1 }
            guard back >= max(0, hit - 600) else { continue }
            var end = back + funcKeyword.count
            while end < source.count, source[end] == UInt8(ascii: " ") { end += 1 }
            let start = end
            while isIdentifierByte(source, at: end) { end += 1 }
            if end > start { names.insert(String(decoding: source[start ..< end], as: UTF8.self)) }
        }
        return names
    }

    private static func isArrowBefore(_ position: Int, _ source: [UInt8]) -> Bool {
        var back = position - 1
        while back > 0, source[back] == UInt8(ascii: " ") { back -= 1 }
        if back >= 6, matches(Array("Swift.".utf8), in: source, at: back - 5) { back -= 6 }
        while back > 0, source[back] == UInt8(ascii: " ") { back -= 1 }
        return back >= 1 && source[back] == UInt8(ascii: ">") && source[back - 1] == UInt8(ascii: "-")
    }

    private static func isIdentifierByte(_ source: [UInt8], at index: Int) -> Bool {
        guard index < source.count else { return false }
        let byte = source[index]
        return byte == UInt8(ascii: "_") || (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
            || byte >= 0x80
    }

    private static func matches(_ needle: [UInt8], in source: [UInt8], at index: Int) -> Bool {
        guard index >= 0, index + needle.count <= source.count else { return false }
        for offset in 0 ..< needle.count where source[index + offset] != needle[offset] { return false }
        return true
    }

    private static func find(_ needle: [UInt8], in source: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + needle.count <= source.count {
            if source[index] == needle[0], matches(needle, in: source, at: index) { return index }
            index += 1
        }
        return nil
    }
}
