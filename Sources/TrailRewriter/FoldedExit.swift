import SwiftSyntax

/// A synchronous body that is one value returns `value ~>| Trail.Exit()` instead of ending in a `defer`:
/// unoptimized code calls a `defer` body as a function of its own at every return, and that call was most of
/// what tracing compiled in but switched off cost. The operator binds looser than any standard one, so the return
/// expression starts where the value does and a type error in it reads as in an untraced build, at the same line
/// and column. Not where the exit could be skipped or the value type-checks otherwise: a `try` that reaches the
/// operator (an error would leave without the exit), an `if` or `switch` expression (not an operand), `await`,
/// `#if` inside the value, or a `sending` result.
enum FoldedExit {
    /// Whether a body with this result type may fold its exit.
    static func allows(_ type: TypeSyntax?) -> Bool {
        guard let type else { return true }
        return !type.tokens(viewMode: .sourceAccurate).contains { $0.tokenKind == .keyword(.sending) }
    }

    /// The expression that `statements` are, when they are one.
    static func onlyExpression(_ statements: CodeBlockItemListSyntax) -> ExprSyntax? {
        guard statements.count == 1, let item = statements.first else { return nil }
        switch item.item {
        case .expr(let expr): return expr
        case .stmt(let stmt): return stmt.as(ExpressionStmtSyntax.self)?.expression
        default: return nil
        }
    }

    /// Whether the body's one expression is marked `unsafe`, which then covers the exit operator too.
    static func valueIsMarkedUnsafe(_ statements: CodeBlockItemListSyntax) -> Bool {
        onlyExpression(statements)?.is(UnsafeExprSyntax.self) == true
    }

    /// Where the closing parenthesis goes, right after the value and before its trailing comments, when a body
    /// that is one expression given an implicit `return` (`returnPoints`) folds.
    static func valueEnd(_ statements: CodeBlockItemListSyntax, returnPoints: [Int]) -> Int? {
        guard returnPoints.count == 1, let expression = onlyExpression(statements),
            returnPoints[0] == expression.positionAfterSkippingLeadingTrivia.utf8Offset,
            !expression.is(IfExprSyntax.self), !expression.is(SwitchExprSyntax.self)
        else { return nil }
        for token in expression.tokens(viewMode: .sourceAccurate) {
            switch token.tokenKind {
            case .keyword(.try):
                // A plain `try` may leave the body without its exit. `try?` and `try!` end where they are
                // enclosed, but one among the value's operators covers the exit operator too.
                guard let tryExpr = token.parent?.as(TryExprSyntax.self), tryExpr.questionOrExclamationMark != nil,
                    !reachesTop(tryExpr, of: expression)
                else { return nil }
            case .poundIf, .keyword(.await):
                return nil
            default:
                continue
            }
        }
        return expression.endPositionBeforeTrailingTrivia.utf8Offset
    }

    /// Whether `node` is one of `top`'s operands, with no parentheses, call or literal around it in between.
    private static func reachesTop(_ node: some SyntaxProtocol, of top: ExprSyntax) -> Bool {
        var current = Syntax(node)
        while current.id != top.id {
            guard let parent = current.parent else { return false }
            switch parent.kind {
            case .exprList, .sequenceExpr, .infixOperatorExpr, .ternaryExpr, .unresolvedTernaryExpr, .tryExpr,
                .awaitExpr, .unsafeExpr, .asExpr, .isExpr, .unresolvedAsExpr, .unresolvedIsExpr, .prefixOperatorExpr:
                current = parent
            default:
                return false
            }
        }
        return true
    }
}
