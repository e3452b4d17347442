@_spi(ExperimentalLanguageFeatures) import SwiftParser
import SwiftSyntax

/// Parsing with the compiler's experimental syntax: a file of a package that builds must parse, whatever
/// features its target enables, but enabling every feature breaks ordinary code (`do throws(E)` under
/// DoExpressions, a `read { }` call in a getter under CoroutineAccessors, `var _mutating` under
/// ReferenceBindings, a property named `then` under ThenStatements).
enum Parsing {
    /// Features that change nothing in code that does not use them (swiftc 6.3 takes `borrow`/`mutate`
    /// accessors without a flag).
    static let safe: Parser.ExperimentalFeatures = [
        .borrowAndMutateAccessors, .keypathWithMethodMembers, .nonescapableTypes, .oldOwnershipOperatorSpellings,
    ]

    /// The feature a compiler name (`-enable-experimental-feature NAME`) stands for, if the parser has it.
    static func feature(named name: String) -> Parser.ExperimentalFeatures? { Parser.ExperimentalFeatures(name: name) }

    /// Parses with the safe features and `names`; a tree with errors is parsed again with the features that
    /// change ordinary code, and that tree is used when it has none. `yield` is legal only in accessors, so a
    /// file with `yield` gets `read`/`modify` accessors from the start: without them `read { yield x }` in a
    /// getter parses, wrongly, as a call.
    static func parse(_ buffer: UnsafeBufferPointer<UInt8>, features names: [String]) -> SourceFileSyntax {
        var features = safe
        for name in names { if let feature = feature(named: name) { features.formUnion(feature) } }
        if hasYield(buffer) { features.formUnion(.coroutineAccessors) }
        let tree = Parser.parse(source: buffer, swiftVersion: nil, experimentalFeatures: features)
        guard tree.hasError else { return tree }
        let more = features.union([.referenceBindings, .doExpressions, .thenStatements])
        let retried = Parser.parse(source: buffer, swiftVersion: nil, experimentalFeatures: more)
        return retried.hasError ? tree : retried
    }

    /// `yield` appears in `read`/`modify` coroutine accessors: only then are they tried.
    private static func hasYield(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        let word = Array("yield".utf8)
        guard buffer.count >= word.count else { return false }
        for index in 0 ... buffer.count - word.count where buffer[index] == word[0] {
            if buffer[index ..< index + word.count].elementsEqual(word) { return true }
        }
        return false
    }
}
