import SwiftSyntax

/// A synchronous body that is one value returns `Trail.exit(returning: value)` instead of ending in a
/// `defer`: unoptimized code calls a `defer` body as a function of its own at every return, and that call was
/// most of what tracing compiled in but switched off cost. Only where the value's type checks alike inside the
/// call: an `if` or `switch` expression cannot be an argument, an error thrown by `try` would skip the exit,
/// and a `sending` result or `#if` inside the value are left to the `defer`. Build copies (`--line-directive`)
/// keep the `defer` too, so that a type error in the value is reported where an untraced build reports it.
enum FoldedExit {
    /// Whether a body with this result type may fold its exit.
    static func allows(_ type: TypeSyntax?) -> Bool {
        guard let type else { return true }
        return !type.tokens(viewMode: .sourceAccurate).contains { $0.tokenKind == .keyword(.sending) }
    }

    /// Where the closing parenthesis goes, right after the value and before its trailing comments, when a body
    /// that is one expression given an implicit `return` (`returnPoints`) folds.
    static func valueEnd(_ statements: CodeBlockItemListSyntax, returnPoints: [Int]) -> Int? {
        guard statements.count == 1, let item = statements.first, returnPoints.count == 1 else { return nil }
        let expression: ExprSyntax
        switch item.item {
        case .expr(let expr): expression = expr
        case .stmt(let stmt):
            guard let expr = stmt.as(ExpressionStmtSyntax.self)?.expression else { return nil }
            expression = expr
        default: return nil
        }
        guard returnPoints[0] == expression.positionAfterSkippingLeadingTrivia.utf8Offset,
            !expression.is(IfExprSyntax.self), !expression.is(SwitchExprSyntax.self)
        else { return nil }
        for token in expression.tokens(viewMode: .sourceAccurate) {
            switch token.tokenKind {
            case .keyword(.try):
                // `try?` and `try!` end there; a plain `try` may leave the body without its exit.
                guard let tryExpr = token.parent?.as(TryExprSyntax.self), tryExpr.questionOrExclamationMark != nil
                else { return nil }
            case .poundIf, .keyword(.await):
                return nil
            default:
                continue
            }
        }
        return expression.endPositionBeforeTrailingTrivia.utf8Offset
    }
}
