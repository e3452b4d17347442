import SwiftSyntax

/// Bodies that a result builder transforms without an attribute in sight: a builder inherited from a
/// protocol of another module (SwiftUI's `View.body`) leaves no trace in the file, so such bodies are recognized
/// by their shape. Each rule below holds for bodies with a value result type and no `return` (a `return`
/// turns the builder off), and matches only what could not compile without a builder. Skipping costs a body's
/// tracing; instrumenting a builder body costs the build, so when in doubt a body is skipped.
enum BuilderBody {
    /// One statement of a body, with expression statements seen as their expression.
    enum Item {
        case expr(ExprSyntax)
        case stmt(StmtSyntax)
        case decl(DeclSyntax)

        init(_ item: CodeBlockItemSyntax) {
            switch item.item {
            case .expr(let expr): self = .expr(expr)
            case .stmt(let stmt):
                if let expr = stmt.as(ExpressionStmtSyntax.self)?.expression {
                    self = .expr(expr)
                } else {
                    self = .stmt(stmt)
                }
            case .decl(let decl): self = .decl(decl)
            @unknown default: self = .stmt(StmtSyntax(MissingStmtSyntax()))
            }
        }
    }

    /// `opaque`: the result type is `some P`. The caller checked the result type is a value and there is no
    /// `return`. Each build configuration (`#if` clause) is judged on its own, and any one that needs a
    /// builder is enough.
    static func needsBuilder(_ statements: CodeBlockItemListSyntax, opaque: Bool, never: Set<String>) -> Bool {
        guard let configurations = variants(statements) else { return true }
        return configurations.contains { needsBuilder($0, opaque: opaque, never: never) }
    }

    private static func needsBuilder(_ items: [Item], opaque: Bool, never: Set<String>) -> Bool {
        // A value from no statement at all: only a builder's `buildBlock()` gives one.
        guard let last = items.last else { return true }
        // R0: `some P` from anything but one expression needs a builder to form the value.
        if opaque, !isSingleExpression(items, never) { return true }
        switch last {
        case .expr(let expr):
            let expr = unwrapped(expr)
            // R2, R6: an `if` without `else`, or an `if`/`switch` statement with a branch that ends without a value.
            if let ifExpr = expr.as(IfExprSyntax.self) {
                return !ImplicitReturn.isValue(ExprSyntax(ifExpr), never) && fallsThrough(ifExpr, never)
            }
            if let switchExpr = expr.as(SwitchExprSyntax.self) {
                return !ImplicitReturn.isValue(ExprSyntax(switchExpr), never) && fallsThrough(switchExpr, never)
            }
            // R1: a value after other statements is a builder component, unless it may be a call to a `Never`
            // function (which ends a body without a value).
            return items.count >= 2 && !mayNotReturn(expr, never)
        case .stmt(let stmt):
            // R3, R4, R5: loops, `guard`, `defer` and `do` that end the body without a value.
            return !stmt.is(ThrowStmtSyntax.self) && fallsThrough(.stmt(stmt), never)
        case .decl:
            // R1: a declaration cannot be a body's value.
            return true
        }
    }

    /// A closure whose type is not written may be a builder's argument: its statements end in a component
    /// (a value or a declaration after other statements), which outside a builder would be an unused value.
    static func endsInComponent(_ statements: CodeBlockItemListSyntax, never: Set<String>) -> Bool {
        guard let configurations = variants(statements) else { return true }
        return configurations.contains { items in
            guard items.count >= 2, let last = items.last else { return false }
            switch last {
            case .decl: return true
            case .stmt: return false
            case .expr(let expr):
                let expr = unwrapped(expr)
                return !expr.is(IfExprSyntax.self) && !expr.is(SwitchExprSyntax.self) && !isAssignment(expr)
                    && !mayNotReturn(expr, never)
            }
        }
    }

    private static func isAssignment(_ expr: ExprSyntax) -> Bool {
        if expr.is(AssignmentExprSyntax.self) { return true }
        if let infix = expr.as(InfixOperatorExprSyntax.self) { return isAssignment(infix.operator) }
        guard let sequence = expr.as(SequenceExprSyntax.self) else { return false }
        return sequence.elements.contains { element in
            if element.is(AssignmentExprSyntax.self) { return true }
            guard let op = element.as(BinaryOperatorExprSyntax.self)?.operator.text else { return false }
            return op.hasSuffix("=") && !["==", "!=", "<=", ">=", "===", "!=="].contains(op)
        }
    }

    /// One expression (a lone `if`/`switch` expression too) that an implicit return gives back.
    private static func isSingleExpression(_ items: [Item], _ never: Set<String>) -> Bool {
        guard items.count == 1, case .expr(let expr) = items[0] else { return false }
        let inner = unwrapped(expr)
        if inner.is(IfExprSyntax.self) || inner.is(SwitchExprSyntax.self) {
            return ImplicitReturn.isValue(inner, never)
        }
        return true
    }

    // MARK: Falling through

    /// Whether control can reach the end of these statements (without a value, `return` or `throw`).
    static func fallsThrough(_ statements: CodeBlockItemListSyntax, _ never: Set<String>) -> Bool {
        guard let configurations = variants(statements) else { return true }
        return configurations.contains { items in items.last.map { fallsThrough($0, never) } ?? true }
    }

    private static func fallsThrough(_ item: Item, _ never: Set<String>) -> Bool {
        switch item {
        case .expr(let expr):
            let expr = unwrapped(expr)
            if let ifExpr = expr.as(IfExprSyntax.self) { return fallsThrough(ifExpr, never) }
            if let switchExpr = expr.as(SwitchExprSyntax.self) { return fallsThrough(switchExpr, never) }
            return !mayNotReturn(expr, never)
        case .stmt(let stmt):
            if stmt.is(ReturnStmtSyntax.self) || stmt.is(ThrowStmtSyntax.self) || stmt.is(ContinueStmtSyntax.self)
                || stmt.is(FallThroughStmtSyntax.self)
            {
                return false
            }
            if let loop = stmt.as(WhileStmtSyntax.self) {
                return !(loop.conditions.count == 1 && isLiteralTrue(loop.conditions.first?.condition))
            }
            if let loop = stmt.as(RepeatStmtSyntax.self) { return !isLiteralTrue(loop.condition) }
            if let doStmt = stmt.as(DoStmtSyntax.self) {
                return fallsThrough(doStmt.body.statements, never)
                    || doStmt.catchClauses.contains { fallsThrough($0.body.statements, never) }
            }
            if let labeled = stmt.as(LabeledStmtSyntax.self) { return fallsThrough(.stmt(labeled.statement), never) }
            // `for`, `guard` (control goes on after it), `defer`, `break`.
            return true
        case .decl:
            return true
        }
    }

    private static func fallsThrough(_ ifExpr: IfExprSyntax, _ never: Set<String>) -> Bool {
        if fallsThrough(ifExpr.body.statements, never) { return true }
        switch ifExpr.elseBody {
        case .ifExpr(let next)?: return fallsThrough(next, never)
        case .codeBlock(let block)?: return fallsThrough(block.statements, never)
        default: return true
        }
    }

    private static func fallsThrough(_ switchExpr: SwitchExprSyntax, _ never: Set<String>) -> Bool {
        switchExpr.cases.contains { element in
            guard case .switchCase(let switchCase) = element else { return true }
            return fallsThrough(switchCase.statements, never)
        }
    }

    private static func isLiteralTrue(_ expr: ExprSyntax?) -> Bool {
        expr?.as(BooleanLiteralExprSyntax.self)?.literal.tokenKind == .keyword(.true)
    }

    private static func isLiteralTrue(_ condition: ConditionElementSyntax.Condition?) -> Bool {
        guard case .expression(let expr)? = condition else { return false }
        return isLiteralTrue(expr)
    }

    // MARK: Calls

    /// A call that may be to a `Never` function: any call but a known builder component, such as
    /// `Text("a")`, `SwiftUI.Text("a")` or `Text("a").bold()` (a type's initializer never returns `Never`).
    static func mayNotReturn(_ expr: ExprSyntax, _ never: Set<String>) -> Bool {
        guard let call = unwrapped(expr).as(FunctionCallExprSyntax.self) else { return false }
        return !isComponentCall(call, never)
    }

    private static func isComponentCall(_ call: FunctionCallExprSyntax, _ never: Set<String>) -> Bool {
        var callee = call.calledExpression
        if let generic = callee.as(GenericSpecializationExprSyntax.self) { callee = generic.expression }
        if let reference = callee.as(DeclReferenceExprSyntax.self) { return isTypeName(reference.baseName.text) }
        guard let member = callee.as(MemberAccessExprSyntax.self) else { return false }
        let name = member.declName.baseName.text
        if ImplicitReturn.knownNever.contains(name) || never.contains(name) { return false }
        if isTypeName(name) { return true }
        // A modifier chain on a component: `Text("a").bold()`.
        if let base = member.base.map(unwrapped), let inner = base.as(FunctionCallExprSyntax.self) {
            return isComponentCall(inner, never)
        }
        return false
    }

    private static func isTypeName(_ name: String) -> Bool {
        let trimmed = name.hasPrefix("`") ? name.dropFirst() : Substring(name)
        return trimmed.first?.isUppercase == true
    }

    private static func unwrapped(_ expr: ExprSyntax) -> ExprSyntax {
        var expr = expr
        while true {
            if let inner = expr.as(TryExprSyntax.self) {
                expr = inner.expression
                continue
            }
            if let inner = expr.as(AwaitExprSyntax.self) {
                expr = inner.expression
                continue
            }
            return expr
        }
    }

    // MARK: Build configurations

    /// The statements each combination of `#if` clauses leaves (a `#if` without `#else` may leave nothing);
    /// nil when there are too many combinations to judge.
    static func variants(_ statements: CodeBlockItemListSyntax) -> [[Item]]? {
        var result: [[Item]] = [[]]
        for item in statements {
            guard let ifConfig = item.item.as(IfConfigDeclSyntax.self) else {
                for index in result.indices { result[index].append(Item(item)) }
                continue
            }
            var options: [[Item]] = []
            for clause in ifConfig.clauses {
                switch clause.elements {
                case .statements(let inner)?:
                    guard let expanded = variants(inner) else { return nil }
                    options += expanded
                case nil: options.append([])
                default: options.append([Item(item)])
                }
            }
            if !ifConfig.clauses.contains(where: { $0.poundKeyword.tokenKind == .poundElse }) { options.append([]) }
            result = result.flatMap { prefix in options.map { prefix + $0 } }
            if result.count > 64 { return nil }
        }
        return result
    }
}

/// Whether statements `return`. A `return` turns a result builder off, so such a body is never transformed.
final class ReturnFinder: OwnStatementsFinder {
    static func returns(_ statements: CodeBlockItemListSyntax) -> Bool { finds(in: statements) }

    override func visit(_ node: ReturnStmtSyntax) -> SyntaxVisitorContinueKind {
        found = true
        return .skipChildren
    }
}

/// Looks for something in a body's own statements: nested closures, functions, accessors and types are
/// bodies of their own.
class OwnStatementsFinder: SyntaxVisitor {
    var found = false

    required override init(viewMode: SyntaxTreeViewMode) { super.init(viewMode: viewMode) }

    static func finds(in statements: CodeBlockItemListSyntax) -> Bool {
        let finder = Self(viewMode: .sourceAccurate)
        finder.walk(statements)
        return finder.found
    }

    override func visit(_ node: ClosureExprSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
    override func visit(_ node: AccessorBlockSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
    override func visit(_ node: MemberBlockSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
}
