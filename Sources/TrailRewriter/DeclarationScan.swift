/// What a file declares that changes how bodies are rewritten, in that file and in the others of its module:
/// functions returning `Never`, `@resultBuilder` types, protocol requirements that carry a result builder to the
/// witnesses of conforming types, and type aliases of function types.
public struct Declarations: Equatable, Sendable {
    public var neverReturning: Set<String> = []
    public var resultBuilders: Set<String> = []
    /// `typealias Handler = (Int) -> Void`: a parameter of such a type is a non-escaping closure, which a build
    /// with values must not pass to a generic recorder (`ValueCapture`).
    public var functionTypeAliases: Set<String> = []
    /// `@unsafe struct Buffer`, `@unsafe typealias Bytes = UnsafeRawBufferPointer`: a parameter whose type names
    /// one is read as `unsafe Trail.value(…)` in a build with values, as `-strict-memory-safety` requires.
    public var unsafeTypes: Set<String> = []
    /// Protocol requirements with an attribute, which is a result builder when its name ends in `Builder` or
    /// names one of `resultBuilders`: `@ViewBuilder var body: Body { get }`.
    public var requirements: Set<Requirement> = []
    /// Each protocol and the protocols it inherits from, as written (`protocol Q: P, Equatable` gives Q: [P, Equatable]).
    public var refinements: [String: Set<String>] = [:]

    public struct Requirement: Hashable, Sendable, Comparable {
        public var protocolName: String
        public var name: String
        public var attribute: String

        public init(protocolName: String, name: String, attribute: String) {
            self.protocolName = protocolName
            self.name = name
            self.attribute = attribute
        }

        public static func < (lhs: Requirement, rhs: Requirement) -> Bool {
            (lhs.protocolName, lhs.name, lhs.attribute) < (rhs.protocolName, rhs.name, rhs.attribute)
        }
    }

    public init(
        neverReturning: Set<String> = [], resultBuilders: Set<String> = [], requirements: Set<Requirement> = [],
        refinements: [String: Set<String>] = [:], functionTypeAliases: Set<String> = [],
        unsafeTypes: Set<String> = []
    ) {
        self.neverReturning = neverReturning
        self.resultBuilders = resultBuilders
        self.requirements = requirements
        self.refinements = refinements
        self.functionTypeAliases = functionTypeAliases
        self.unsafeTypes = unsafeTypes
    }

    /// The declarations in one file's text, found by `DeclarationScan`.
    public init(scanning source: [UInt8]) {
        let marked = DeclarationScan.markedTypeAttributes(in: source)
        self.init(
            neverReturning: DeclarationScan.neverReturning(in: source),
            resultBuilders: DeclarationScan.resultBuilders(in: source, after: marked.builders),
            functionTypeAliases: DeclarationScan.functionTypeAliases(in: source),
            unsafeTypes: DeclarationScan.unsafeTypes(in: source, after: marked.unsafe))
        DeclarationScan.protocols(in: source, into: &self)
    }

    /// All that any of `parts` declares.
    public init(merging parts: [Declarations]) {
        for part in parts {
            neverReturning.formUnion(part.neverReturning)
            resultBuilders.formUnion(part.resultBuilders)
            functionTypeAliases.formUnion(part.functionTypeAliases)
            unsafeTypes.formUnion(part.unsafeTypes)
            requirements.formUnion(part.requirements)
            refinements.merge(part.refinements) { $0.union($1) }
        }
    }

    /// `@Name` or `@Module.Name` is a result builder.
    public func isResultBuilder(_ attribute: String) -> Bool {
        let name = attribute.split(separator: ".").last.map(String.init) ?? attribute
        return name.hasSuffix("Builder") || resultBuilders.contains(name)
    }

    /// The requirement names whose witnesses a builder transforms, for a declaration that states conformance
    /// to `protocols` (directly, or through the protocols they refine).
    public func builderRequirements(of protocols: [String]) -> Set<String> {
        let built = requirements.filter { isResultBuilder($0.attribute) }
        guard !built.isEmpty else { return [] }
        var seen: Set<String> = []
        var pending = protocols
        while let next = pending.popLast() {
            guard seen.insert(next).inserted else { continue }
            pending += refinements[next] ?? []
        }
        return Set(built.filter { seen.contains($0.protocolName) }.map(\.name))
    }

    /// What another module's declarations tell this one's rewrite: its result builders, builder requirements and
    /// aliases of function types, not its `Never` functions, whose names may be this module's for functions that
    /// return.
    public var seenFromAnotherModule: Declarations {
        var seen = self
        seen.neverReturning = []
        return seen
    }

    /// Only what can matter to a rewrite: requirements with a builder attribute, and the refinements that lead
    /// to their protocols. Keeps the list `trail scan` writes, and so the rebuilds it triggers, small.
    public var relevant: Declarations {
        let built = requirements.filter { isResultBuilder($0.attribute) }
        var reaching = Set(built.map(\.protocolName))
        var kept: [String: Set<String>] = [:]
        var grew = true
        while grew {
            grew = false
            for (name, parents) in refinements {
                let leading = parents.intersection(reaching)
                guard !leading.isEmpty, kept[name] != leading else { continue }
                kept[name] = leading
                reaching.insert(name)
                grew = true
            }
        }
        return Declarations(
            neverReturning: neverReturning, resultBuilders: resultBuilders, requirements: built,
            refinements: kept, functionTypeAliases: functionTypeAliases, unsafeTypes: unsafeTypes)
    }
}

/// Finds declarations that change how bodies are rewritten, by a textual scan that is cheap next to parsing,
/// so that a whole tree can be scanned before any file is rewritten.
enum DeclarationScan {
    /// Where each `@resultBuilder` and `@unsafe` attribute ends, in one pass over the bytes.
    static func markedTypeAttributes(in source: [UInt8]) -> (builders: [Int], unsafe: [Int]) {
        let builder = Array("@resultBuilder".utf8)
        let unsafe = Array("@unsafe".utf8)
        var builders: [Int] = []
        var unsafes: [Int] = []
        let at = [UInt8(ascii: "@")]
        var index = 0
        while let hit = find(at, in: source, from: index) {
            index = hit + 1
            if matches(builder, in: source, at: hit) {
                builders.append(hit + builder.count)
            } else if matches(unsafe, in: source, at: hit), !isIdentifierByte(source, at: hit + unsafe.count) {
                unsafes.append(hit + unsafe.count)
            }
        }
        return (builders, unsafes)
    }

    /// `@resultBuilder` types: their attribute marks bodies that must not get statements. `after`: where each
    /// attribute ends (`markedTypeAttributes`).
    static func resultBuilders(in source: [UInt8], after hits: [Int]? = nil) -> Set<String> {
        var names: Set<String> = []
        let keywords = ["struct ", "enum ", "class ", "actor "].map { Array($0.utf8) }
        for index in hits ?? markedTypeAttributes(in: source).builders {
            // The type keyword follows within the attribute list and modifiers.
            var cursor = index
            while cursor < min(source.count, index + 300) {
                if let keyword = keywords.first(where: { matches($0, in: source, at: cursor) }),
                    cursor == 0 || !isIdentifierByte(source, at: cursor - 1)
                {
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

    /// Types marked `@unsafe` (`@unsafe typealias Bytes = …` too), with only attributes and modifiers between:
    /// `@unsafe` marks functions too, and a type declared after one is not unsafe. Not other aliases of unsafe
    /// types: an alias may be nested (`Element`) and its name a generic parameter elsewhere, where an `unsafe`
    /// that covers nothing unsafe is warned of.
    static func unsafeTypes(in source: [UInt8], after hits: [Int]? = nil) -> Set<String> {
        var names: Set<String> = []
        let kinds: Set<String> = ["struct", "enum", "class", "actor", "typealias"]
        let modifiers: Set<String> = [
            "public", "package", "internal", "fileprivate", "private", "open", "final", "indirect", "nonisolated",
        ]
        for index in hits ?? markedTypeAttributes(in: source).unsafe {
            var cursor = index
            while true {
                cursor = skipSpaces(source, from: cursor)
                let isAttribute = cursor < source.count && source[cursor] == UInt8(ascii: "@")
                if isAttribute { cursor += 1 }
                let start = cursor
                while isIdentifierByte(source, at: cursor) { cursor += 1 }
                let word = String(decoding: source[start ..< cursor], as: UTF8.self)
                if isAttribute {
                    if cursor < source.count, source[cursor] == UInt8(ascii: "(") {
                        cursor = matching(source, from: cursor)
                    }
                    if word.isEmpty { break }
                    continue
                }
                if modifiers.contains(word) { continue }
                guard kinds.contains(word) else { break }
                cursor = skipSpaces(source, from: cursor)
                let nameStart = cursor
                while isIdentifierByte(source, at: cursor) { cursor += 1 }
                if cursor > nameStart { names.insert(String(decoding: source[nameStart ..< cursor], as: UTF8.self)) }
                break
            }
        }
        return names
    }

    /// `typealias Name = (A, B) throws -> C` (attributes such as `@Sendable` before it, generic parameters after
    /// the name): the names of type aliases of function types. Not an optional of one, which escapes.
    static func functionTypeAliases(in source: [UInt8]) -> Set<String> {
        var names: Set<String> = []
        let keyword = Array("typealias".utf8)
        var index = 0
        while let hit = find(keyword, in: source, from: index) {
            index = hit + keyword.count
            guard hit == 0 || !isIdentifierByte(source, at: hit - 1), index < source.count, isSpace(source[index])
            else { continue }
            var cursor = skipSpaces(source, from: index)
            let nameStart = cursor
            while isIdentifierByte(source, at: cursor) { cursor += 1 }
            guard cursor > nameStart else { continue }
            let name = String(decoding: source[nameStart ..< cursor], as: UTF8.self)
            cursor = skipSpaces(source, from: cursor)
            if cursor < source.count, source[cursor] == UInt8(ascii: "<") { cursor = matching(source, from: cursor) }
            cursor = skipSpaces(source, from: cursor)
            guard cursor < source.count, source[cursor] == UInt8(ascii: "=") else { continue }
            if isFunctionType(source, at: skipSpaces(source, from: cursor + 1)) { names.insert(name) }
        }
        return names
    }

    /// Whether the type written at `start` is a function type: attributes, a parenthesized parameter list,
    /// effects, then `->`; or one in parentheses of its own, `((Int) -> Void)`, not a tuple or an optional.
    private static func isFunctionType(_ source: [UInt8], at start: Int, nesting: Int = 0) -> Bool {
        var cursor = start
        // Attributes: `@Sendable`, `@MainActor`, `@convention(c)`.
        while cursor < source.count, source[cursor] == UInt8(ascii: "@") {
            cursor += 1
            while isIdentifierByte(source, at: cursor) { cursor += 1 }
            if cursor < source.count, source[cursor] == UInt8(ascii: "(") { cursor = matching(source, from: cursor) }
            cursor = skipSpaces(source, from: cursor)
        }
        guard cursor < source.count, source[cursor] == UInt8(ascii: "(") else { return false }
        let open = cursor
        cursor = skipSpaces(source, from: matching(source, from: open))
        // Effects, then the arrow.
        for effect in ["async", "throws", "rethrows"].map({ Array($0.utf8) })
        where matches(effect, in: source, at: cursor) {
            cursor = skipSpaces(source, from: cursor + effect.count)
            if cursor < source.count, source[cursor] == UInt8(ascii: "(") {
                cursor = skipSpaces(source, from: matching(source, from: cursor))
            }
        }
        if matches(Array("->".utf8), in: source, at: cursor) { return true }
        let after = cursor < source.count ? source[cursor] : 0
        guard nesting < 4, after != UInt8(ascii: "?"), after != UInt8(ascii: "!"), !holdsTopLevelComma(source, open)
        else { return false }
        return isFunctionType(source, at: skipSpaces(source, from: open + 1), nesting: nesting + 1)
    }

    /// A comma directly inside the parentheses at `open`: a tuple's.
    private static func holdsTopLevelComma(_ source: [UInt8], _ open: Int) -> Bool {
        var depth = 0
        for index in open ..< source.count {
            switch source[index] {
            case UInt8(ascii: "("), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: ")"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return false }
            case UInt8(ascii: "<"): depth += 1
            case UInt8(ascii: ">") where index > 0 && source[index - 1] != UInt8(ascii: "-"): depth -= 1
            case UInt8(ascii: ","): if depth == 1 { return true }
            default: break
            }
        }
        return false
    }

    private static func skipSpaces(_ source: [UInt8], from start: Int) -> Int {
        var cursor = start
        while cursor < source.count, isSpace(source[cursor]) { cursor += 1 }
        return cursor
    }

    /// The index after the bracket that closes the `(` or `<` at `open`, nested ones counted; the end if none does.
    private static func matching(_ source: [UInt8], from open: Int) -> Int {
        let opening = source[open]
        let closing = opening == UInt8(ascii: "(") ? UInt8(ascii: ")") : UInt8(ascii: ">")
        var depth = 0
        var cursor = open
        while cursor < source.count {
            if source[cursor] == opening { depth += 1 }
            if source[cursor] == closing {
                depth -= 1
                if depth == 0 { return cursor + 1 }
            }
            cursor += 1
        }
        return cursor
    }

    /// `func name(...) -> Never`: a lone call to one is not a value, so it must not become `return name()`.
    static func neverReturning(in source: [UInt8]) -> Set<String> {
        var names: Set<String> = []
        let never = Array("Never".utf8)
        let funcKeyword = Array("func ".utf8)
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

    /// `protocol P: Q, R { ... @Attr var name ... }`: each protocol's inherited protocols, and its requirements
    /// that carry an attribute. A rough textual reading: a requirement too many costs only tracing.
    static func protocols(in source: [UInt8], into declarations: inout Declarations) {
        let keyword = Array("protocol".utf8)
        var index = 0
        while let hit = find(keyword, in: source, from: index) {
            index = hit + keyword.count
            guard hit == 0 || (!isIdentifierByte(source, at: hit - 1) && source[hit - 1] != UInt8(ascii: ".")),
                index < source.count, isSpace(source[index])
            else { continue }
            var cursor = index
            while cursor < source.count, isSpace(source[cursor]) { cursor += 1 }
            let nameStart = cursor
            while isIdentifierByte(source, at: cursor) { cursor += 1 }
            guard cursor > nameStart else { continue }
            let name = String(decoding: source[nameStart ..< cursor], as: UTF8.self)
            // The header, up to the body's brace, holds only names and punctuation of an inheritance clause.
            let headerStart = cursor
            while cursor < min(source.count, headerStart + 2000), source[cursor] != UInt8(ascii: "{") {
                if [UInt8(ascii: "("), UInt8(ascii: ";"), UInt8(ascii: "}")].contains(source[cursor]) { break }
                cursor += 1
            }
            guard cursor < source.count, source[cursor] == UInt8(ascii: "{") else { continue }
            let parents = inheritedNames(String(decoding: source[headerStart ..< cursor], as: UTF8.self))
            if !parents.isEmpty { declarations.refinements[name, default: []].formUnion(parents) }
            let bodyEnd = matchingBrace(source, from: cursor)
            attributedRequirements(source, cursor + 1, bodyEnd, protocolName: name, into: &declarations.requirements)
            index = bodyEnd
        }
    }

    /// `<Element>: Q, Module.R & S where ...` gives Q, R, S.
    private static func inheritedNames(_ header: String) -> Set<String> {
        let words = header.split(whereSeparator: { $0.isWhitespace })
        var text = Substring(words.prefix(while: { $0 != "where" }).joined(separator: " "))
        // Primary associated types come before the colon.
        guard let colon = text.firstIndex(of: ":") else { return [] }
        text = text[text.index(after: colon)...]
        var names: Set<String> = []
        var depth = 0
        var current = ""
        func flush() {
            let name = current.split(separator: ".").last.map { $0.trimmingSpaces } ?? ""
            if !name.isEmpty { names.insert(name) }
            current = ""
        }
        for character in text {
            switch character {
            case "<": depth += 1
            case ">": depth -= 1
            case "," where depth == 0, "&" where depth == 0: flush()
            default: if depth == 0 { current.append(character) }
            }
        }
        flush()
        return names
    }

    /// Each `@Attribute` in a protocol body, with the name of the `var`, `func` or `subscript` it precedes.
    private static func attributedRequirements(
        _ source: [UInt8], _ start: Int, _ end: Int, protocolName: String,
        into found: inout Set<Declarations.Requirement>
    ) {
        let kinds = ["var", "func", "subscript", "init", "associatedtype", "typealias"].map { Array($0.utf8) }
        var cursor = start
        while cursor < end {
            guard source[cursor] == UInt8(ascii: "@") else {
                cursor += 1
                continue
            }
            var nameEnd = cursor + 1
            while nameEnd < end, isIdentifierByte(source, at: nameEnd) || source[nameEnd] == UInt8(ascii: ".") {
                nameEnd += 1
            }
            let attribute = String(decoding: source[cursor + 1 ..< nameEnd], as: UTF8.self)
            cursor = nameEnd
            // The declaration the attribute belongs to: the next declaration keyword.
            var scan = nameEnd
            while scan < end {
                if !isIdentifierByte(source, at: scan - 1),
                    let kind = kinds.first(where: { matches($0, in: source, at: scan) }),
                    !isIdentifierByte(source, at: scan + kind.count)
                {
                    let keyword = String(decoding: kind, as: UTF8.self)
                    if keyword == "subscript" {
                        found.insert(.init(protocolName: protocolName, name: "subscript", attribute: attribute))
                    } else if keyword == "var" || keyword == "func" {
                        var nameStart = scan + kind.count
                        while nameStart < end, isSpace(source[nameStart]) { nameStart += 1 }
                        var stop = nameStart
                        while isIdentifierByte(source, at: stop) { stop += 1 }
                        if stop > nameStart, !attribute.isEmpty {
                            found.insert(
                                .init(
                                    protocolName: protocolName,
                                    name: String(decoding: source[nameStart ..< stop], as: UTF8.self),
                                    attribute: attribute))
                        }
                    }
                    break
                }
                scan += 1
            }
        }
    }

    /// The offset of the `}` that closes the `{` at `open` (or the end of the text).
    private static func matchingBrace(_ source: [UInt8], from open: Int) -> Int {
        var depth = 0
        var cursor = open
        while cursor < source.count {
            switch source[cursor] {
            case UInt8(ascii: "{"): depth += 1
            case UInt8(ascii: "}"):
                depth -= 1
                if depth == 0 { return cursor }
            default: break
            }
            cursor += 1
        }
        return source.count
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
            || byte == UInt8(ascii: "\r")
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
        return byte == UInt8(ascii: "_") || (byte >= 0x30 && byte <= 0x39)
            || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
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

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0.isWhitespace }).reversed().drop(while: { $0.isWhitespace }).reversed())
    }
}
