import SwiftSyntax

/// A body that is one expression returns it implicitly. Once the entry statements precede it, the `return`
/// must be written. This finds where, looking through `#if` clauses, and leaves alone what is not a value:
/// a call to a `Never` function, or an `if`/`switch` used as a statement.
enum ImplicitReturn {
    /// Functions known to return `Never`; `return fatalError()` does not type-check in an `Int` function.
    static let knownNever: Set<String> = [
        "fatalError", "preconditionFailure", "abort", "exit", "_exit", "dispatchMain",
    ]

    static func insertionPoints(_ statements: CodeBlockItemListSyntax, neverFunctions: Set<String>) -> [Int] {
        guard statements.count == 1, let item = statements.first else { return [] }
        switch item.item {
        case .expr(let expr):
            return isValue(expr, neverFunctions) ? [expr.positionAfterSkippingLeadingTrivia.utf8Offset] : []
        case .stmt(let stmt):
            guard let expr = stmt.as(ExpressionStmtSyntax.self)?.expression, isValue(expr, neverFunctions) else {
                return []
            }
            return [expr.positionAfterSkippingLeadingTrivia.utf8Offset]
        case .decl(let decl):
            guard let ifConfig = decl.as(IfConfigDeclSyntax.self) else { return [] }
            return ifConfig.clauses.flatMap { clause -> [Int] in
                guard case .statements(let inner) = clause.elements else { return [] }
                return insertionPoints(inner, neverFunctions: neverFunctions)
            }
        @unknown default:
            return []
        }
    }

    /// An expression a body can give back: not an assignment, a `Never` call, or an `if`/`switch` statement.
    static func isValue(_ expr: ExprSyntax, _ never: Set<String>) -> Bool {
        if let ifExpr = expr.as(IfExprSyntax.self) { return branchesAreValues(ifExpr, never) == .value }
        if let switchExpr = expr.as(SwitchExprSyntax.self) { return branchesAreValues(switchExpr, never) == .value }
        if expr.is(AssignmentExprSyntax.self) { return false }
        if let sequence = expr.as(SequenceExprSyntax.self),
            sequence.elements.contains(where: { $0.is(AssignmentExprSyntax.self) })
        {
            return false
        }
        return !callsNever(expr, never)
    }

    /// A call to a `Never` function, under any `try` and `await`.
    static func callsNever(_ expr: ExprSyntax, _ never: Set<String>) -> Bool {
        var expr = expr
        while true {
            if let tryExpr = expr.as(TryExprSyntax.self) {
                expr = tryExpr.expression
                continue
            }
            if let awaitExpr = expr.as(AwaitExprSyntax.self) {
                expr = awaitExpr.expression
                continue
            }
            break
        }
        guard let call = expr.as(FunctionCallExprSyntax.self) else { return false }
        let name: String
        if let reference = call.calledExpression.as(DeclReferenceExprSyntax.self) {
            name = reference.baseName.text
        } else if let member = call.calledExpression.as(MemberAccessExprSyntax.self) {
            name = member.declName.baseName.text
        } else {
            return false
        }
        return knownNever.contains(name) || never.contains(name)
    }

    /// What the branches of an `if`/`switch` hold: all single expressions (or `throw`), so it is a value,
    /// or anything else, so it is a statement.
    private enum Branches { case value, statement, onlyThrows }

    private static func branch(_ statements: CodeBlockItemListSyntax, _ never: Set<String>) -> Branches {
        guard statements.count == 1, let item = statements.first else { return .statement }
        switch item.item {
        case .expr(let expr):
            return nestedValue(expr, never)
        case .stmt(let stmt):
            if stmt.is(ThrowStmtSyntax.self) { return .onlyThrows }
            if let expr = stmt.as(ExpressionStmtSyntax.self)?.expression { return nestedValue(expr, never) }
            return .statement
        case .decl:
            return .statement
        @unknown default:
            return .statement
        }
    }

    private static func nestedValue(_ expr: ExprSyntax, _ never: Set<String>) -> Branches {
        if let ifExpr = expr.as(IfExprSyntax.self) { return branchesAreValues(ifExpr, never) }
        if let switchExpr = expr.as(SwitchExprSyntax.self) { return branchesAreValues(switchExpr, never) }
        return .value
    }

    private static func combine(_ results: [Branches]) -> Branches {
        if results.contains(.statement) || results.isEmpty { return .statement }
        return results.contains(.value) ? .value : .onlyThrows
    }

    private static func branchesAreValues(_ ifExpr: IfExprSyntax, _ never: Set<String>) -> Branches {
        var results = [branch(ifExpr.body.statements, never)]
        switch ifExpr.elseBody {
        case .none: return .statement
        case .ifExpr(let next)?: results.append(branchesAreValues(next, never))
        case .codeBlock(let block)?: results.append(branch(block.statements, never))
        @unknown default: return .statement
        }
        return combine(results)
    }

    private static func branchesAreValues(_ switchExpr: SwitchExprSyntax, _ never: Set<String>) -> Branches {
        var results: [Branches] = []
        for element in switchExpr.cases {
            guard case .switchCase(let switchCase) = element else { return .statement }
            results.append(branch(switchCase.statements, never))
        }
        return combine(results)
    }
}
