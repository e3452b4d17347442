import SwiftSyntax

/// Where a body that keeps its `defer` returns a value, in a build with values: each `return value` of the body's
/// own statements (not of nested closures, functions or types), and an implicit return made explicit, gets
/// ` ~>> Trail.TypedResult<R>("-> R")` after the value, which records it for the exit. Not a value that is an `if` or
/// `switch` expression (not an operand), holds `#if`, or, in build copies, spans lines (a type error in it would be
/// reported at the operator's line).
final class ReturnedValues: OwnStatementsFinder {
    private var ends: [Int] = []
    private var multiLine: (ExprSyntax) -> Bool = { _ in false }

    /// The offsets right after each returned value of `statements`; `implicitReturns`: where `return ` is inserted.
    static func ends(
        _ statements: CodeBlockItemListSyntax, implicitReturns: [Int], spansLines: @escaping (ExprSyntax) -> Bool
    ) -> [Int] {
        let finder = ReturnedValues(viewMode: .sourceAccurate)
        finder.multiLine = spansLines
        finder.walk(statements)
        for point in implicitReturns {
            if let value = expression(startingAt: point, in: statements) { finder.add(value) }
        }
        return finder.ends
    }

    override func visit(_ node: ReturnStmtSyntax) -> SyntaxVisitorContinueKind {
        if let value = node.expression { add(value) }
        return .skipChildren
    }

    private func add(_ value: ExprSyntax) {
        if value.is(IfExprSyntax.self) || value.is(SwitchExprSyntax.self) || multiLine(value) { return }
        if value.tokens(viewMode: .sourceAccurate).contains(where: { $0.tokenKind == .poundIf }) { return }
        ends.append(value.endPositionBeforeTrailingTrivia.utf8Offset)
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
