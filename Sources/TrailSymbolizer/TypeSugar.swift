#if canImport(Glibc)
import Glibc
#endif

/// The type sugar `swift demangle` prints and the runtime's `swift_demangle` does not: `Swift.Optional<A>`
/// becomes `A?`, `Swift.Array<A>` `[A]`, `Swift.Dictionary<K, V>` `[K : V]`. The runtime prints exactly what
/// `swift demangle --no-sugar` does, so sugaring its text gives what `swift demangle` prints (a test checks
/// this over every Swift symbol of the toolchain's runtime libraries).
enum TypeSugar {
    static func apply(_ text: String) -> String {
        var copy = text
        let sugared = copy.withUTF8 { apply($0) }
        return sugared.map { String(decoding: $0, as: UTF8.self) } ?? text
    }

    /// The sugared bytes; nil when there is nothing to sugar, as in most names. The search for what could be is
    /// libc's `memchr`: a byte-by-byte scan here cost a third of demangling a name.
    static func apply(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let base = bytes.baseAddress, memchr(base, 60, bytes.count) != nil else { return nil }  // no '<'
        // Every pattern starts "Swift." and then O, I, A or D.
        var from = 0
        while true {
            guard let found = memchr(base + from, 83, bytes.count - from) else { return nil }  // 'S'
            let position = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            guard position + 6 < bytes.count else { return nil }
            if bytes[position + 5] == 46, memcmp(base + position, "Swift.", 6) == 0 {
                let next = bytes[position + 6]
                if next == 79 || next == 73 || next == 65 || next == 68 { break }
            }
            from = position + 1
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        sugar(bytes, 0 ..< bytes.count, into: &out)
        return out
    }

    private typealias Bytes = UnsafeBufferPointer<UInt8>

    private enum Kind { case optional, unwrapped, array, dictionary }

    private static let patterns: [(prefix: [UInt8], kind: Kind)] = [
        (Array("Swift.Optional<".utf8), .optional),
        (Array("Swift.ImplicitlyUnwrappedOptional<".utf8), .unwrapped),
        (Array("Swift.Array<".utf8), .array),
        (Array("Swift.Dictionary<".utf8), .dictionary),
    ]

    private static func sugar(_ bytes: Bytes, _ range: Range<Int>, into out: inout [UInt8]) {
        guard let base = bytes.baseAddress else { return }
        /// The next `byte` at or after `start` in the range, or its end: by `memchr`, as runs are long.
        func next(_ byte: UInt8, from start: Int) -> Int {
            guard start < range.upperBound, let found = memchr(base + start, Int32(byte), range.upperBound - start)
            else { return range.upperBound }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
        var position = range.lowerBound
        var bracket = -1  // the next '[' found so far
        while position < range.upperBound {
            // Only '[' and 'S' can begin what changes: the bytes up to the next are copied at once.
            if bytes[position] != 91, bytes[position] != 83 {
                if bracket < position { bracket = next(91, from: position) }
                let end = min(bracket, next(83, from: position))
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[position ..< end]))
                position = end
                continue
            }
            // A function named inside a specialization's parameters prints without sugar.
            if bytes[position] == 91, starts(bytes, at: position, before: range.upperBound, with: unsugaredFunction),
                let close = closingBracket(bytes, from: position + 1, before: range.upperBound)
            {
                out += bytes[position ... close]
                position = close + 1
                continue
            }
            if bytes[position] == 83, let (kind, length) = match(bytes, at: position, before: range.upperBound),  // 'S'
                startsType(bytes, at: position, from: range.lowerBound),
                let close = closing(bytes, from: position + length, before: range.upperBound)
            {
                let arguments = split(bytes, position + length ..< close)
                if !arguments.contains(where: { hasWhereClause(bytes, $0) }), emit(kind, arguments, bytes, into: &out) {
                    position = close + 1
                    continue
                }
            }
            out.append(bytes[position])
            position += 1
        }
    }

    private static func emit(_ kind: Kind, _ arguments: [Range<Int>], _ bytes: Bytes, into out: inout [UInt8]) -> Bool {
        switch (kind, arguments.count) {
        case (.optional, 1), (.unwrapped, 1):
            var inner: [UInt8] = []
            sugar(bytes, arguments[0], into: &inner)
            let parenthesized = !isSimple(inner)
            if parenthesized { out.append(40) }
            out += inner
            if parenthesized { out.append(41) }
            out.append(kind == .optional ? 63 : 33)  // ? or !
        case (.array, 1):
            out.append(91)
            sugar(bytes, arguments[0], into: &out)
            out.append(93)
        case (.dictionary, 2):
            out.append(91)
            sugar(bytes, arguments[0], into: &out)
            out += [32, 58, 32]  // " : "
            sugar(bytes, arguments[1], into: &out)
            out.append(93)
        default:
            return false
        }
        return true
    }

    /// Whether a type name can begin at `position`. Not in `Module.Swift.Array<`, a type nested in another,
    /// nor in `RealmSwift.Array<`, a module's name. But the demangler may print types back to back
    /// (`Argument Types : [Swift.StringSwift.Optional<...>]`, `for <ASwift.Optional<...>>`): a letter before
    /// is a boundary when the name it ends is qualified or a generic parameter (`A`, `B1`).
    private static func startsType(_ bytes: Bytes, at position: Int, from start: Int) -> Bool {
        var before = position - 1
        guard before >= start, bytes[before] != 46 else { return before < start }  // not after '.'
        func isNamePart(_ byte: UInt8) -> Bool {
            (48 ... 57).contains(byte) || (65 ... 90).contains(byte) || (97 ... 122).contains(byte) || byte == 95
                || byte >= 128
        }
        guard isNamePart(bytes[before]) else { return true }
        let end = before
        while before >= start, isNamePart(bytes[before]) || bytes[before] == 46 {
            if bytes[before] == 46 { return true }
            before -= 1
        }
        // The name alone: a generic parameter is a capital letter and perhaps a number.
        let name = before + 1 ... end
        return (65 ... 90).contains(bytes[name.lowerBound])
            && name.dropFirst().allSatisfy { (48 ... 57).contains(bytes[$0]) }
    }

    private static let unsugaredFunction = Array("[Constant Propagated Function : ".utf8)

    private static func match(_ bytes: Bytes, at position: Int, before end: Int) -> (Kind, Int)? {
        // Every pattern is "Swift." and O, I, A or D: most 'S' are another "Swift." or no type's start at all.
        guard end - position > 6, bytes[position + 5] == 46 else { return nil }
        let next = bytes[position + 6]
        guard next == 79 || next == 73 || next == 65 || next == 68 else { return nil }
        for pattern in patterns where starts(bytes, at: position, before: end, with: pattern.prefix) {
            return (pattern.kind, pattern.prefix.count)
        }
        return nil
    }

    private static func starts(_ bytes: Bytes, at position: Int, before end: Int, with prefix: [UInt8]) -> Bool {
        end - position >= prefix.count
            && prefix.withUnsafeBytes { memcmp(bytes.baseAddress! + position, $0.baseAddress!, prefix.count) == 0 }
    }

    /// The `]` matching a `[` just before `start`.
    private static func closingBracket(_ bytes: Bytes, from start: Int, before end: Int) -> Int? {
        var depth = 0
        for position in start ..< end {
            if bytes[position] == 91 { depth += 1 }
            if bytes[position] == 93 {
                if depth == 0 { return position }
                depth -= 1
            }
        }
        return nil
    }

    /// How a byte changes the bracket depth: `<`, `(` and `[` open; `)`, `]` and a `>` close, but not the `>`
    /// of an arrow `->`.
    private static func nesting(_ byte: UInt8, after previous: UInt8?) -> Int {
        switch byte {
        case 60, 40, 91: return 1
        case 41, 93: return -1
        case 62: return previous == 45 ? 0 : -1
        default: return 0
        }
    }

    private static func nesting(_ bytes: Bytes, at position: Int) -> Int {
        nesting(bytes[position], after: position > 0 ? bytes[position - 1] : nil)
    }

    /// The `>` that closes generic arguments starting at `start`.
    private static func closing(_ bytes: Bytes, from start: Int, before end: Int) -> Int? {
        var depth = 0
        for position in start ..< end {
            let change = nesting(bytes, at: position)
            if change < 0, depth == 0 { return bytes[position] == 62 ? position : nil }
            depth += change
        }
        return nil
    }

    /// `Name #2 in <context>`: a type declared in a function, whatever its context prints.
    private static func isLocalType(_ type: [UInt8]) -> Bool {
        // " #"
        guard let space = type.firstIndex(of: 32), space > 0, space + 1 < type.count, type[space + 1] == 35 else {
            return false
        }
        let digits = type[(space + 2)...].prefix { (48 ... 57).contains($0) }
        return !digits.isEmpty && type[(space + 2 + digits.count)...].starts(with: localIn)
    }

    private static let whereClause = Array(" where ".utf8)

    /// `A where A: P`: the generic signature of a constrained extension, not arguments to sugar.
    private static func hasWhereClause(_ bytes: Bytes, _ range: Range<Int>) -> Bool {
        let clause = whereClause
        if !range.isEmpty, bytes[range.lowerBound] == 32 { return true }  // `< where A: P>`
        var depth = 0
        for position in range {
            if depth == 0, bytes[position] == 32, starts(bytes, at: position, before: range.upperBound, with: clause) {
                return true
            }
            depth += nesting(bytes, at: position)
        }
        return false
    }

    /// Generic arguments split at top-level `, `.
    private static func split(_ bytes: Bytes, _ range: Range<Int>) -> [Range<Int>] {
        var parts: [Range<Int>] = []
        var depth = 0
        var start = range.lowerBound
        for position in range {
            if depth == 0, bytes[position] == 44, position + 1 < range.upperBound, bytes[position + 1] == 32 {
                parts.append(start ..< position)
                start = position + 2
            }
            depth += nesting(bytes, at: position)
        }
        parts.append(start ..< range.upperBound)
        return parts
    }

    /// Whether a printed type needs no parentheses before `?`: not a function type, a composition, or a
    /// type with a leading attribute or keyword.
    private static func isSimple(_ type: [UInt8]) -> Bool {
        if isLocalType(type) { return true }
        if type == some { return false }  // an opaque type
        // `any P.Type`: an existential metatype, which prints as a simple type.
        if type.starts(with: any), type.reversed().starts(with: metatype) || type.reversed().starts(with: protocolType)
        {
            return true
        }
        var depth = 0
        for (position, byte) in type.enumerated() {
            if depth == 0, byte == 45, position + 2 < type.count, type[position + 1] == 62, type[position + 2] == 32 {
                return false
            }  // ->
            if depth == 0, byte == 38, position > 0, type[position - 1] == 32 { return false }  // &
            depth += nesting(byte, after: position > 0 ? type[position - 1] : nil)
        }
        for keyword in leadingKeywords where type.starts(with: keyword) { return false }
        return true
    }

    /// What a type that needs parentheses before `?` may begin with. (Bytes made once: a `String`'s view
    /// compared byte by byte, in a fresh array per call, cost more than the rest of sugaring.)
    private static let leadingKeywords: [[UInt8]] = [
        "@", "any ", "some ", "inout ", "__owned ", "__shared ", "isolated ", "sending ", "each ", "repeat ", "~",
    ].map { Array($0.utf8) }
    private static let some = Array("some".utf8)
    private static let localIn = Array(" in ".utf8)
    private static let any = Array("any ".utf8)
    private static let metatype = Array("epyT.".utf8)
    private static let protocolType = Array("locotorP.".utf8)
}
