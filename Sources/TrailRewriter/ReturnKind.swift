import SwiftSyntax

/// What a body gives back: nothing, `Never`, or a value that a lone expression returns implicitly.
enum ReturnKind: Equatable {
    case void, never, value

    init(_ type: TypeSyntax) {
        switch type.trimmedDescription {
        case "Void", "()", "Swift.Void": self = .void
        case "Never", "Swift.Never": self = .never
        default: self = .value
        }
    }

    /// A closure's result type is rarely written; a lone expression may be returned either way.
    init(closure: ClosureExprSyntax) {
        if let type = closure.signature?.returnClause?.type { self.init(type) } else { self = .value }
    }
}
