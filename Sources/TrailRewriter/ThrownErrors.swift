import SwiftSyntax

/// Where a build with values learns what a call threw: a throwing body that keeps its `defer` and whose own
/// statements can throw gets `do {` after its entry and `} catch { Trail.threw(error); throw error }` before its
/// closing brace, so the error passes through unchanged and the exit shows it. Typed throws get
/// `do throws(E) {`, so the `catch` sees an `E` and rethrows one. A `try` in a call's arguments may be in an
/// `@autoclosure` of a function that does not throw (`XCTAssertEqual(try f(), 1)`), whose errors never leave:
/// `try Trail.mayThrow()`, which never throws, keeps the `catch` reachable for the compiler, which would warn
/// otherwise. A `rethrows` body may call nothing that throws of itself, so it gets no `mayThrow` and counts no
/// `try` in a call's arguments; nor is it wrapped with a `throw` of its own (in a `catch` that rethrows, as
/// `withSpan` does) or a `try` in a `catch` (swift-nio's datagram writes): the compiler allows those only there, and
/// then takes the added `catch`'s `throw` for one the parameters do not cause; nor is an `async rethrows` body
/// (`opening`). Not where no statement of the body's own can throw, nor for `throws(Never)`.
enum ThrownErrors {
    /// The `do` that opens the body's statements, or nil when its errors are not caught.
    static func opening(_ clause: ThrowsClauseSyntax?, _ statements: CodeBlockItemListSyntax, async: Bool) -> String? {
        guard let clause, !statements.isEmpty else { return nil }
        let rethrowing = clause.throwsSpecifier.tokenKind == .keyword(.rethrows)
        // Swift 6.3 crashes lowering that `throw` where the `do` calls an async sequence's rethrowing algorithm
        // (`try await self.reduce(into: [])`, `contains`, `allSatisfy`), as swift-nio's tests do.
        if rethrowing && async { return nil }
        let finder = ThrowFinder(viewMode: .sourceAccurate)
        finder.countsCallArguments = !rethrowing
        finder.walk(statements)
        guard finder.found else { return nil }
        if rethrowing { return finder.foundThrowStatement || finder.foundInCatch ? nil : " do {" }
        guard let type = clause.type else { return " do { try Trail.mayThrow();" }
        let text = ValueCapture.typeText(type)
        if text == "Never" || text == "Swift.Never" { return nil }
        return " do throws(\(text)) { try Trail.mayThrow((\(text)).self);"
    }

    /// What closes the `do` before the body's closing brace; an async body names its span, having no frame on the
    /// thread's stack.
    static func closing(async: Bool) -> String {
        async ? "} catch { Trail.threw(error, __trail); throw error }" : "} catch { Trail.threw(error); throw error }"
    }
}

/// A plain `try` or a `throw` among a body's own statements that may leave the body: not one a `try?` or `try!`
/// covers, nor one inside a `do` with a `catch` that takes every error, nor inside a macro's arguments (its
/// expansion may handle it), nor inside the arguments of a call that no `try` covers: the parameter may be an
/// `@autoclosure` of a function that does not throw (`XCTAssertEqual(try f(), 1)`, `check(try g())`), whose
/// errors never leave the body, and a `catch` no error reaches draws a warning.
final class ThrowFinder: OwnStatementsFinder {
    /// A `throw` statement among them, not only `try`s.
    private(set) var foundThrowStatement = false
    /// A `try` or `throw` in a `catch` clause: where a `rethrows` body may throw what its parameters did not.
    private(set) var foundInCatch = false
    private var catchDepth = 0
    /// Whether a `try` in the arguments of a call no `try` covers counts (see `ThrownErrors`).
    var countsCallArguments = false

    override func visit(_ node: TryExprSyntax) -> SyntaxVisitorContinueKind {
        if node.questionOrExclamationMark == nil {
            found = true
            if catchDepth > 0 { foundInCatch = true }
        }
        return .skipChildren
    }

    override func visit(_ node: ThrowStmtSyntax) -> SyntaxVisitorContinueKind {
        found = true
        foundThrowStatement = true
        return .skipChildren
    }

    override func visit(_ node: CatchClauseSyntax) -> SyntaxVisitorContinueKind {
        catchDepth += 1
        return .visitChildren
    }

    override func visitPost(_ node: CatchClauseSyntax) { catchDepth -= 1 }

    override func visit(_ node: ForStmtSyntax) -> SyntaxVisitorContinueKind {
        if node.tryKeyword != nil { found = true }
        return .visitChildren
    }

    override func visit(_ node: DoStmtSyntax) -> SyntaxVisitorContinueKind {
        guard node.catchClauses.contains(where: Self.catchesEverything) else { return .visitChildren }
        for clause in node.catchClauses { walk(clause) }
        return .skipChildren
    }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        if countsCallArguments { return .visitChildren }
        walk(node.calledExpression)
        return .skipChildren
    }

    override func visit(_ node: SubscriptCallExprSyntax) -> SyntaxVisitorContinueKind {
        if countsCallArguments { return .visitChildren }
        walk(node.calledExpression)
        return .skipChildren
    }

    override func visit(_ node: MacroExpansionExprSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
    override func visit(_ node: MacroExpansionDeclSyntax) -> SyntaxVisitorContinueKind { .skipChildren }

    /// `catch`, `catch let error`, `catch _`: no pattern that could fail, no `where`.
    private static func catchesEverything(_ clause: CatchClauseSyntax) -> Bool {
        if clause.catchItems.isEmpty { return true }
        return clause.catchItems.contains { item in
            guard item.whereClause == nil, let pattern = item.pattern else { return false }
            if pattern.trimmedDescription == "_" { return true }
            guard let binding = pattern.as(ValueBindingPatternSyntax.self) else { return false }
            return binding.pattern.is(IdentifierPatternSyntax.self) || binding.pattern.is(WildcardPatternSyntax.self)
        }
    }
}
