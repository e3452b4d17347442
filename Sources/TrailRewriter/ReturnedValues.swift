import SwiftSyntax

/// Where a body that keeps its `defer` returns a value, in a build with values: each `return value` of the body's
/// own statements (not of nested closures, functions or types), and an implicit return made explicit, gets
/// ` ~>> Trail.TypedResult<R>("-> R")` after the value, which records it for the exit. An `if` or `switch`
/// expression is not an operand: each of its branches' values gets it instead (not a `throw`, nor a call to a
/// `Never` function, which a branch may be). Not a value that holds `#if`, or, in build copies, spans lines (a type
/// error in it would be reported at the operator's line).
final class ReturnedValues: OwnStatementsFinder {
    /// A returned value: where it starts and ends, and whether the body marks it `unsafe` (which covers the
    /// operator after it too).
    struct Value: Equatable {
        var start: Int
        var end: Int
        var markedUnsafe: Bool
    }

    private var values: [Value] = []
    private var multiLine: (ExprSyntax) -> Bool = { _ in false }
    private var neverFunctions: Set<String> = []

    /// Each returned value of `statements`; `implicitReturns`: where `return ` is inserted.
    static func values(
        _ statements: CodeBlockItemListSyntax, implicitReturns: [Int], neverFunctions: Set<String> = [],
        spansLines: @escaping (ExprSyntax) -> Bool
    ) -> [Value] {
        let finder = ReturnedValues(viewMode: .sourceAccurate)
        finder.multiLine = spansLines
        finder.neverFunctions = neverFunctions
        finder.walk(statements)
        for point in implicitReturns {
            if let value = expression(startingAt: point, in: statements) { finder.add(value) }
        }
        return finder.values
    }

    override func visit(_ node: ReturnStmtSyntax) -> SyntaxVisitorContinueKind {
        if let value = node.expression { add(value) }
        return .skipChildren
    }

    private func add(_ value: ExprSyntax) {
        // `try if …` and `await switch …` cover the branches' values, which take the operator under them.
        var inner = value
        while true {
            if let tryExpr = inner.as(TryExprSyntax.self) {
                inner = tryExpr.expression
            } else if let awaitExpr = inner.as(AwaitExprSyntax.self) {
                inner = awaitExpr.expression
            } else {
                break
            }
        }
        if let ifExpr = inner.as(IfExprSyntax.self) { return addBranches(of: ifExpr) }
        if let switchExpr = inner.as(SwitchExprSyntax.self) {
            for element in switchExpr.cases {
                guard case .switchCase(let switchCase) = element else { continue }  // `#if` around cases
                addBranch(switchCase.statements)
            }
            return
        }
        if multiLine(value) { return }
        if value.tokens(viewMode: .sourceAccurate).contains(where: { $0.tokenKind == .poundIf }) { return }
        values.append(
            Value(
                start: value.positionAfterSkippingLeadingTrivia.utf8Offset,
                end: value.endPositionBeforeTrailingTrivia.utf8Offset, markedUnsafe: value.is(UnsafeExprSyntax.self)))
    }

    private func addBranches(of ifExpr: IfExprSyntax) {
        addBranch(ifExpr.body.statements)
        switch ifExpr.elseBody {
        case .ifExpr(let next)?: addBranches(of: next)
        case .codeBlock(let block)?: addBranch(block.statements)
        default: break
        }
    }

    /// A branch's one expression; not a `throw` or other statement, nor a call to a `Never` function.
    private func addBranch(_ statements: CodeBlockItemListSyntax) {
        guard let expression = FoldedExit.onlyExpression(statements) else { return }
        if ImplicitReturn.callsNever(expression, neverFunctions) { return }
        add(expression)
    }

    /// The whole expression of the statement that starts at `offset`.
    private static func expression(startingAt offset: Int, in statements: CodeBlockItemListSyntax) -> ExprSyntax? {
        guard
            let token = statements.tokens(viewMode: .sourceAccurate).first(where: {
                $0.positionAfterSkippingLeadingTrivia.utf8Offset == offset
            })
        else { return nil }
        var node = Syntax(token)
        var found: ExprSyntax?
        while let parent = node.parent, parent.positionAfterSkippingLeadingTrivia.utf8Offset == offset,
            !parent.is(CodeBlockItemSyntax.self)
        {
            if let expression = parent.as(ExprSyntax.self) { found = expression }
            node = parent
        }
        return found
    }
}
