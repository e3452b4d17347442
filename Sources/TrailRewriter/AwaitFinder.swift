import SwiftSyntax

/// Whether statements suspend, not counting nested closures and functions, which are bodies of their own.
final class AwaitFinder: OwnStatementsFinder {
    static func awaits(_ statements: CodeBlockItemListSyntax) -> Bool { finds(in: statements) }

    override func visit(_ node: AwaitExprSyntax) -> SyntaxVisitorContinueKind {
        found = true
        return .skipChildren
    }

    override func visit(_ node: ForStmtSyntax) -> SyntaxVisitorContinueKind {
        if node.awaitKeyword != nil { found = true }
        return found ? .skipChildren : .visitChildren
    }

    override func visit(_ node: VariableDeclSyntax) -> SyntaxVisitorContinueKind {
        if node.modifiers.contains(where: { $0.name.tokenKind == .keyword(.async) }) { found = true }
        return found ? .skipChildren : .visitChildren
    }
}
