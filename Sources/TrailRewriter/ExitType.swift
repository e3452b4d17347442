import SwiftSyntax

/// The type a folded exit names (`value ~>| Trail.TypedExit<R>()`): the body's written result type, which fixes
/// the exit operator's type so that the value is checked against it as a bare `return` checks it. Left to the
/// value's own type (`Trail.Exit()`) is a type that cannot be written in an expression (`some P`, `T!`) and one
/// that names `AnyHashable`, to which an operator's argument does not convert.
enum ExitType {
    /// The written type on one line, or nil where the value's own type must pass (`Trail.Exit()`).
    static func text(_ type: TypeSyntax?) -> String? {
        guard let type else { return nil }
        var text = ""
        var spaced = false
        for token in type.tokens(viewMode: .sourceAccurate) {
            switch token.tokenKind {
            case .keyword(.some), .exclamationMark, .identifier("AnyHashable"): return nil
            default: break
            }
            // Trivia between two tokens, line breaks and comments among it, becomes one space: the insertion
            // adds no line, and a comment would not end where the type does.
            if !text.isEmpty, spaced || !token.leadingTrivia.isEmpty { text += " " }
            text += token.text
            spaced = !token.trailingTrivia.isEmpty
        }
        return text
    }
}
