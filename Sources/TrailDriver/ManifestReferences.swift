import Foundation
import SwiftParser
import SwiftSyntax
import TrailRewriter

/// Uses of `traced`, and code that changes `package.targets`.
final class ManifestReferences: SyntaxVisitor {
    var traced = 0
    var targetsReplacedByCode: Syntax?
    var targetsAddedByCode: Syntax?
    /// Every `.package(...)`: in `dependencies:`, or added in code (`package.dependencies += [...]`).
    var packages: [FunctionCallExprSyntax] = []

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        if let member = node.calledExpression.as(MemberAccessExprSyntax.self), member.base == nil,
            member.declName.baseName.text == "package"
        {
            packages.append(node)
        }
        return .visitChildren
    }

    override func visit(_ node: DeclReferenceExprSyntax) -> SyntaxVisitorContinueKind {
        if node.baseName.text == "traced" { traced += 1 }
        return .visitChildren
    }

    override func visit(_ node: MemberAccessExprSyntax) -> SyntaxVisitorContinueKind {
        let name = node.declName.baseName.text
        // Reading `package.targets` (a loop that adjusts settings, as swift-log's does) is fine, and so is adding
        // targets (swift-argument-parser appends its macOS-only ones); replacing them, or setting a target's
        // `sources`/`plugins` in code, is what setup cannot see.
        if name == "targets" && node.base?.tokenText == "package" {
            if Self.isAdded(node) {
                if targetsAddedByCode == nil { targetsAddedByCode = Syntax(node) }
            } else if Self.isMutated(node), targetsReplacedByCode == nil {
                targetsReplacedByCode = Syntax(node)
            }
        } else if (name == "sources" || name == "plugins") && node.base != nil && Self.isAssigned(node),
            targetsReplacedByCode == nil
        {
            targetsReplacedByCode = Syntax(node)
        }
        return .visitChildren
    }

    /// `x.append(…)`, `x.append(contentsOf: …)`, `x.insert(…)` or `x += …`: the targets written out stay as written.
    private static func isAdded(_ node: MemberAccessExprSyntax) -> Bool {
        if let method = node.parent?.as(MemberAccessExprSyntax.self)?.declName.baseName.text {
            return method == "append" || method == "insert"
        }
        guard let list = node.parent?.as(ExprListSyntax.self), let index = list.firstIndex(where: { $0.id == node.id })
        else {
            return false
        }
        let next = list.index(after: index)
        return next < list.endIndex && list[next].as(BinaryOperatorExprSyntax.self)?.operator.text == "+="
    }

    /// `x.append(…)`, `x.insert(…)`, `x.remove…(…)`, `x.replaceSubrange(…)`, or `x = …`, `x += …`.
    private static func isMutated(_ node: MemberAccessExprSyntax) -> Bool {
        if let parent = node.parent?.as(MemberAccessExprSyntax.self) {
            let method = parent.declName.baseName.text
            return ["append", "insert", "replaceSubrange", "swapAt", "sort", "reverse"].contains(method)
                || method.hasPrefix("remove")
        }
        return isAssigned(node)
    }

    /// The left side of `=` or a compound assignment (`+=`).
    private static func isAssigned(_ node: MemberAccessExprSyntax) -> Bool {
        guard let list = node.parent?.as(ExprListSyntax.self), let index = list.firstIndex(where: { $0.id == node.id })
        else {
            return false
        }
        let next = list.index(after: index)
        guard next < list.endIndex else { return false }
        let operation = list[next]
        if operation.is(AssignmentExprSyntax.self) { return true }
        guard let text = operation.as(BinaryOperatorExprSyntax.self)?.operator.text else { return false }
        return text.hasSuffix("=") && !["==", "!=", "<=", ">=", "==="].contains(text)
    }
}

extension FunctionCallExprSyntax {
    func argument(_ label: String) -> LabeledExprSyntax? { arguments.first { $0.label?.text == label } }
}

extension SyntaxProtocol {
    /// The tokens' text, one space apart: equal for the same code however it is laid out.
    var tokenText: String {
        tokens(viewMode: .sourceAccurate).filter { $0.tokenKind != .endOfFile }.map(\.text).joined(separator: " ")
    }
}
