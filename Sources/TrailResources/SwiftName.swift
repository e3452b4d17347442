/// Turns a file name or an attribute value into a Swift identifier, changing as little as possible so that a
/// constant is easy to trace back to what it names (the rules are in Docs/resources.md):
/// characters that cannot be in an identifier separate words, and each word after the first starts uppercase
/// (`glyphicons-002-dog` → `glyphicons002Dog`); a leading uppercase run is lowered (`MasterObject` →
/// `masterObject`, `URLCache` → `urlCache`); a leading digit gets `_`; a keyword gets backticks.
public enum SwiftName {
    /// A constant's name: lowerCamelCase.
    public static func constant(_ text: String) -> String {
        escaped(joinWords(text, lowerFirst: true))
    }

    /// A type's name (an XML file's enum): UpperCamelCase.
    public static func type(_ text: String) -> String {
        let name = joinWords(text, lowerFirst: false)
        // Even in backticks, `Type` and `Protocol` after a dot mean the metatype.
        if name == "Type" || name == "Protocol" { return name + "_" }
        return escaped(name)
    }

    static func joinWords(_ text: String, lowerFirst: Bool) -> String {
        var words: [String] = []
        var word = ""
        for scalar in text.unicodeScalars {
            if isIdentifierCharacter(scalar) {
                word.unicodeScalars.append(scalar)
            } else if !word.isEmpty {
                words.append(word)
                word = ""
            }
        }
        if !word.isEmpty { words.append(word) }
        // Nothing to keep (`---`): the scalars in hex keep distinct names distinct.
        guard !words.isEmpty else {
            return "_" + text.unicodeScalars.map { String($0.value, radix: 16, uppercase: true) }.joined()
        }
        var name = lowerFirst ? lowerLeadingRun(words[0]) : upperFirst(words[0])
        for next in words.dropFirst() { name += upperFirst(next) }
        if let first = name.unicodeScalars.first, !isIdentifierHead(first) { name = "_" + name }
        return name
    }

    /// `MasterObject` → `masterObject`, `URLCache` → `urlCache`, `ID` → `id`: an uppercase run that goes on in
    /// lowercase keeps its last letter, which starts the next word.
    static func lowerLeadingRun(_ word: String) -> String {
        let characters = Array(word)
        var run = 0
        while run < characters.count, characters[run].isUppercase { run += 1 }
        guard run > 0 else { return word }
        if run > 1, run < characters.count, characters[run].isLowercase { run -= 1 }
        return characters[..<run].map { $0.lowercased() }.joined() + String(characters[run...])
    }

    static func upperFirst(_ word: String) -> String {
        guard let first = word.first else { return word }
        return first.uppercased() + word.dropFirst()
    }

    static func escaped(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// Words that need backticks as a declaration's name (more than needed is harmless: backticks around an
    /// identifier change nothing).
    static let keywords: Set<String> = [
        "associatedtype", "borrowing", "class", "consuming", "deinit", "enum", "extension", "fileprivate", "func",
        "import", "init", "inout", "internal", "let", "open", "operator", "private", "precedencegroup", "protocol",
        "public", "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch",
        "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return",
        "throw", "switch", "where", "while", "Any", "as", "await", "false", "is", "nil", "self", "Self", "super",
        "throws", "true", "try", "_", "some", "any", "async", "package", "copy", "discard", "each", "consume",
    ]

    /// The Swift grammar's identifier-character: a head, a digit or a combining mark.
    static func isIdentifierCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30 ... 0x39, 0x300 ... 0x36F, 0x1DC0 ... 0x1DFF, 0x20D0 ... 0x20FF, 0xFE20 ... 0xFE2F: true
        default: isIdentifierHead(scalar)
        }
    }

    /// The Swift grammar's identifier-head, less the invisible format characters (zero-width and bidi controls,
    /// the soft hyphen), which nobody could type back: they separate words like other characters.
    static func isIdentifierHead(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x41 ... 0x5A, 0x61 ... 0x7A, 0x5F: true
        case 0xA8, 0xAA, 0xAF, 0xB2 ... 0xB5, 0xB7 ... 0xBA, 0xBC ... 0xBE, 0xC0 ... 0xD6, 0xD8 ... 0xF6, 0xF8 ... 0xFF:
            true
        case 0x100 ... 0x2FF, 0x370 ... 0x167F, 0x1681 ... 0x180D, 0x180F ... 0x1DBF, 0x1E00 ... 0x1FFF: true
        case 0x203F ... 0x2040, 0x2054, 0x2070 ... 0x20CF, 0x2100 ... 0x218F, 0x2460 ... 0x24FF, 0x2776 ... 0x2793: true
        case 0x2C00 ... 0x2DFF, 0x2E80 ... 0x2FFF, 0x3004 ... 0x3007, 0x3021 ... 0x302F, 0x3031 ... 0x303F: true
        case 0x3040 ... 0xD7FF, 0xF900 ... 0xFD3D, 0xFD40 ... 0xFDCF, 0xFDF0 ... 0xFE1F, 0xFE30 ... 0xFE44: true
        case 0xFE47 ... 0xFFFD: true
        case let value where value >= 0x10000 && value & 0xFFFF <= 0xFFFD && value < 0xF0000: true
        default: false
        }
    }
}
