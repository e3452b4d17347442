import SwiftSyntax
import TrailFormat

/// Walks a parsed file once and records, for every function-like body, the text to insert and where.
/// Nothing is rebuilt: the edits are spliced into the original bytes afterwards.
final class BodyCollector: SyntaxVisitor {
    private let options: InstrumentOptions
    private let lines: SourceLines
    private let fileID: String
    private(set) var edits: [Edit] = []
    private(set) var bodies = 0

    /// Name components below the module: types, functions, properties, closures.
    private var scopes: [String] = []
    /// Closures are numbered per enclosing scope, in source order.
    private var closureCounts: [Int] = [0]

    init(options: InstrumentOptions, lines: SourceLines, fileID: String) {
        self.options = options
        self.lines = lines
        self.fileID = fileID
        super.init(viewMode: .sourceAccurate)
    }

    // MARK: Scopes

    private func push(_ name: String) {
        scopes.append(name)
        closureCounts.append(0)
    }

    private func pop() {
        scopes.removeLast()
        closureCounts.removeLast()
    }

    /// The current scope's full name, plus `suffix` for an implicit getter.
    private func qualified(_ suffix: String?) -> String {
        ([options.module] + scopes + (suffix.map { [$0] } ?? [])).joined(separator: ".")
    }

    private func typeScope(_ name: String, _ node: some SyntaxProtocol) -> SyntaxVisitorContinueKind {
        push(name)
        return isIgnored(node) ? .skipChildren : .visitChildren
    }

    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind {
        typeScope(Naming.identifier(node.name), node)
    }
    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        typeScope(Naming.identifier(node.name), node)
    }
    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind {
        typeScope(Naming.identifier(node.name), node)
    }
    override func visit(_ node: ActorDeclSyntax) -> SyntaxVisitorContinueKind {
        typeScope(Naming.identifier(node.name), node)
    }
    override func visit(_ node: ProtocolDeclSyntax) -> SyntaxVisitorContinueKind {
        typeScope(Naming.identifier(node.name), node)
    }
    override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind {
        typeScope(Naming.type(node.extendedType), node)
    }
    override func visitPost(_ node: StructDeclSyntax) { pop() }
    override func visitPost(_ node: ClassDeclSyntax) { pop() }
    override func visitPost(_ node: EnumDeclSyntax) { pop() }
    override func visitPost(_ node: ActorDeclSyntax) { pop() }
    override func visitPost(_ node: ProtocolDeclSyntax) { pop() }
    override func visitPost(_ node: ExtensionDeclSyntax) { pop() }

    // Macros read their arguments' syntax; attribute arguments and default values are not bodies we own.
    override func visit(_ node: MacroExpansionDeclSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
    override func visit(_ node: MacroExpansionExprSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
    override func visit(_ node: AttributeSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
    override func visit(_ node: FunctionParameterClauseSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
    override func visit(_ node: EnumCaseParameterClauseSyntax) -> SyntaxVisitorContinueKind { .skipChildren }

    // MARK: Functions

    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind {
        let name = Naming.function(node)
        push(name)
        guard let body = node.body, !isSkipped(node, node.attributes) else { return .skipChildren }
        let returnType = node.signature.returnClause?.type
        if isBuilt(
            body.statements, type: returnType, void: returnType == nil, witness: Naming.identifier(node.name), of: node)
        {
            return .skipChildren
        }
        instrument(
            after: body.leftBrace, body.statements, line: node.funcKeyword,
            async: node.signature.effectSpecifiers?.asyncSpecifier != nil,
            returns: returnType.map(ReturnKind.init) ?? .void, foldsExit: FoldedExit.allows(returnType),
            resultType: returnType, arguments: node.signature.parameterClause.parameters,
            throwsClause: node.signature.effectSpecifiers?.throwsClause)
        return .visitChildren
    }
    override func visitPost(_ node: FunctionDeclSyntax) { pop() }

    override func visit(_ node: InitializerDeclSyntax) -> SyntaxVisitorContinueKind {
        let name = Naming.initializer(node)
        push(name)
        guard let body = node.body, !isSkipped(node, node.attributes) else { return .skipChildren }
        instrument(
            after: body.leftBrace, body.statements, line: node.initKeyword,
            async: node.signature.effectSpecifiers?.asyncSpecifier != nil, returns: .void,
            arguments: node.signature.parameterClause.parameters,
            throwsClause: node.signature.effectSpecifiers?.throwsClause)
        return .visitChildren
    }
    override func visitPost(_ node: InitializerDeclSyntax) { pop() }

    override func visit(_ node: DeinitializerDeclSyntax) -> SyntaxVisitorContinueKind {
        push("deinit")
        guard let body = node.body, !isSkipped(node, node.attributes) else { return .skipChildren }
        instrument(
            after: body.leftBrace, body.statements, line: node.deinitKeyword,
            async: false, returns: .void)
        return .visitChildren
    }
    override func visitPost(_ node: DeinitializerDeclSyntax) { pop() }

    // MARK: Properties, subscripts and accessors

    override func visit(_ node: VariableDeclSyntax) -> SyntaxVisitorContinueKind {
        isSkipped(node, node.attributes) ? .skipChildren : .visitChildren
    }

    override func visit(_ node: PatternBindingSyntax) -> SyntaxVisitorContinueKind {
        guard let block = node.accessorBlock else { return .visitChildren }
        let name = Naming.binding(node)
        push(name)
        if case .getter(let statements) = block.accessors {
            if let variable = node.parent?.parent?.as(VariableDeclSyntax.self),
                isBuilt(statements, type: node.typeAnnotation?.type, witness: name, of: variable)
            {
                return .skipChildren
            }
            let keyword = node.parent?.parent?.as(VariableDeclSyntax.self)?.bindingSpecifier
            instrument(
                after: block.leftBrace, statements, getter: true, line: keyword ?? block.leftBrace, async: false,
                returns: node.typeAnnotation.map { ReturnKind($0.type) } ?? .value,
                foldsExit: FoldedExit.allows(node.typeAnnotation?.type), resultType: node.typeAnnotation?.type)
        }
        return .visitChildren
    }
    override func visitPost(_ node: PatternBindingSyntax) {
        if node.accessorBlock != nil { pop() }
    }

    override func visit(_ node: SubscriptDeclSyntax) -> SyntaxVisitorContinueKind {
        let name = Naming.subscriptSignature(node.parameterClause.parameters)
        push(name)
        if isSkipped(node, node.attributes) { return .skipChildren }
        if case .getter(let statements) = node.accessorBlock?.accessors, let block = node.accessorBlock {
            if isBuilt(statements, type: node.returnClause.type, witness: "subscript", of: node) {
                return .skipChildren
            }
            instrument(
                after: block.leftBrace, statements, getter: true, line: node.subscriptKeyword,
                async: false, returns: ReturnKind(node.returnClause.type),
                foldsExit: FoldedExit.allows(node.returnClause.type), resultType: node.returnClause.type,
                arguments: node.parameterClause.parameters)
        }
        return .visitChildren
    }
    override func visitPost(_ node: SubscriptDeclSyntax) { pop() }

    override func visit(_ node: AccessorDeclSyntax) -> SyntaxVisitorContinueKind {
        let accessor = Naming.accessor(node)
        push(accessor)
        // An `init` accessor runs before `self` exists and may only initialize; leave it alone.
        guard let body = node.body, node.accessorSpecifier.tokenKind != .keyword(.`init`),
            !isSkipped(node, node.attributes)
        else { return .skipChildren }
        // A getter returns the property's or subscript's type.
        let owner = propertyDeclaration(of: node)
        let property = accessor == "get" ? owner : nil
        if let (type, witness, member) = property, isBuilt(body.statements, type: type, witness: witness, of: member) {
            return .skipChildren
        }
        // Every accessor of a subscript sees its parameters: `Grid.subscript(2, column: 3).get`.
        let subscriptParameters = owner?.decl.as(SubscriptDeclSyntax.self)?.parameterClause.parameters
        // A setter and `willSet` see the value given: `Shelf.count.set(newValue: 3)`.
        var assigned: [ValueCapture.Argument] = []
        if options.values, accessor == "set" || accessor == "willSet", let owner, let type = owner.type {
            assigned.append(
                ValueCapture.assignedValue(
                    named: node.parameters?.name.text ?? "newValue", type: type, owner: owner.name,
                    functionAliases: options.declarations.functionTypeAliases,
                    unsafeTypes: options.declarations.unsafeTypes))
        }
        instrument(
            after: body.leftBrace, body.statements, line: node.accessorSpecifier,
            async: node.effectSpecifiers?.asyncSpecifier != nil,
            returns: accessor == "get" ? property?.type.map(ReturnKind.init) ?? .value : .void,
            foldsExit: accessor == "get" && FoldedExit.allows(property?.type), resultType: property?.type,
            arguments: subscriptParameters, assigned: assigned, throwsClause: node.effectSpecifiers?.throwsClause)
        return .visitChildren
    }
    override func visitPost(_ node: AccessorDeclSyntax) { pop() }

    /// The type, name and declaration of the property or subscript an accessor belongs to.
    private func propertyDeclaration(of accessor: AccessorDeclSyntax) -> (
        type: TypeSyntax?, name: String, decl: Syntax
    )? {
        var node = accessor.parent
        while let current = node {
            if let binding = current.as(PatternBindingSyntax.self), let variable = binding.parent?.parent {
                return (binding.typeAnnotation?.type, Naming.binding(binding), variable)
            }
            if let sub = current.as(SubscriptDeclSyntax.self) {
                return (sub.returnClause.type, "subscript", Syntax(sub))
            }
            node = current.parent
        }
        return nil
    }

    // MARK: Closures

    override func visit(_ node: ClosureExprSyntax) -> SyntaxVisitorContinueKind {
        closureCounts[closureCounts.count - 1] += 1
        let name = "closure#\(closureCounts[closureCounts.count - 1])"
        push(name)
        if options.closures, node.statements.count > 1 || Self.spellsOutItsType(node) {
            let insertAfter = node.signature?.inKeyword ?? node.leftBrace
            // A closure is async when it says so, or when it awaits: its context makes it async.
            let async = node.signature?.effectSpecifiers?.asyncSpecifier != nil || AwaitFinder.awaits(node.statements)
            if let type = node.signature?.returnClause?.type {
                if isBuilt(node.statements, type: type, witness: nil, of: node) { return .skipChildren }
            } else if !ReturnFinder.returns(node.statements),
                BuilderBody.endsInComponent(node.statements, never: options.declarations.neverReturning)
            {
                return .skipChildren
            }
            instrument(
                after: insertAfter, node.statements, line: node.leftBrace, async: async,
                returns: ReturnKind(closure: node))
        }
        return .visitChildren
    }
    override func visitPost(_ node: ClosureExprSyntax) { pop() }

    /// Swift infers a one-statement closure's parameter and result types from its body, and stops once
    /// statements are added; so such a closure is traced only when its signature writes every type.
    static func spellsOutItsType(_ node: ClosureExprSyntax) -> Bool {
        guard let signature = node.signature, signature.returnClause != nil else { return false }
        switch signature.parameterClause {
        case .parameterClause(let clause)?: return clause.parameters.allSatisfy { $0.type != nil }
        case .simpleInput(let names)?: return names.isEmpty
        case nil: return true
        @unknown default: return false
        }
    }

    // MARK: Skip rules

    /// A value body that a result builder transforms, though no attribute says so: a witness of a builder
    /// requirement of a protocol the enclosing declaration conforms to, or a body of a shape that needs a
    /// builder (`BuilderBody`). A `return` turns builders off. `void`: no result type is written.
    private func isBuilt(
        _ statements: CodeBlockItemListSyntax, type: TypeSyntax?, void: Bool = false,
        witness name: String?, of member: some SyntaxProtocol
    ) -> Bool {
        guard !void, (type.map(ReturnKind.init) ?? .value) == .value, !ReturnFinder.returns(statements) else {
            return false
        }
        if let name, builderWitnesses(of: Syntax(member)).contains(name) { return true }
        let opaque = type?.as(SomeOrAnyTypeSyntax.self)?.someOrAnySpecifier.tokenKind == .keyword(.some)
        return BuilderBody.needsBuilder(statements, opaque: opaque, never: options.declarations.neverReturning)
    }

    /// Requirement names a builder transforms in the declaration that holds `member`, when that declaration
    /// states conformance to protocols with builder requirements (only there: a conformance stated elsewhere
    /// does not make these members witnesses).
    private func builderWitnesses(of member: Syntax) -> Set<String> {
        guard
            let group = member.parent?.as(MemberBlockItemSyntax.self)?.parent?.parent?.parent?.asProtocol(
                DeclGroupSyntax.self),
            let clause = group.inheritanceClause
        else { return [] }
        if let known = witnessCache[group.id] { return known }
        let names = options.declarations.builderRequirements(
            of: clause.inheritedTypes.flatMap { Self.protocolNames($0.type) })
        witnessCache[group.id] = names
        return names
    }
    private var witnessCache: [SyntaxIdentifier: Set<String>] = [:]

    /// `P`, `Module.P`, `P & Q`, `@retroactive P`.
    private static func protocolNames(_ type: TypeSyntax) -> [String] {
        if let composition = type.as(CompositionTypeSyntax.self) {
            return composition.elements.flatMap { protocolNames($0.type) }
        }
        if let attributed = type.as(AttributedTypeSyntax.self) { return protocolNames(attributed.baseType) }
        if let member = type.as(MemberTypeSyntax.self) { return [Naming.identifier(member.name)] }
        return [Naming.type(type)]
    }

    /// `// trail:ignore` in the comments directly before a declaration.
    private func isIgnored(_ node: some SyntaxProtocol) -> Bool {
        for piece in node.leadingTrivia {
            switch piece {
            case .lineComment(let text), .blockComment(let text), .docLineComment(let text), .docBlockComment(let text):
                if text.contains(Marker.ignoreDecl) { return true }
            default: continue
            }
        }
        return false
    }

    private func isSkipped(_ node: some SyntaxProtocol, _ attributes: AttributeListSyntax) -> Bool {
        if isIgnored(node) { return true }
        for element in attributes {
            guard case .attribute(let attribute) = element else { continue }
            let name = attribute.attributeName.trimmedDescription
            // Result builders: by the naming convention (`@ViewBuilder`) or named in the options.
            if Skip.always.contains(name) || name.hasSuffix("Builder")
                || options.declarations.resultBuilders.contains(name)
            {
                return true
            }
            if !options.inlinable, Skip.emittedIntoClients.contains(name) { return true }
        }
        return false
    }

    // MARK: Edits

    /// The function or property whose body is instrumented: `apiToken(for:)`, or `sessionKey` for its getter.
    private var resultOwner: String {
        guard let last = scopes.last else { return "" }
        return last == "get" && scopes.count > 1 ? scopes[scopes.count - 2] : last
    }

    /// `foldsExit`: a function's or getter's body (not a closure's), whose one value may carry the exit
    /// (`FoldedExit`), typed as its written `resultType` (`ExitType`). `assigned`: a setter's new value
    /// (`ValueCapture.assignedValue`), recorded after the arguments.
    private func instrument(
        after brace: TokenSyntax, _ statements: CodeBlockItemListSyntax, getter: Bool = false,
        line token: TokenSyntax, async: Bool, returns: ReturnKind, foldsExit: Bool = false,
        resultType: TypeSyntax? = nil, arguments parameters: FunctionParameterListSyntax? = nil,
        assigned: [ValueCapture.Argument] = [], throwsClause: ThrowsClauseSyntax? = nil
    ) {
        let line = lines.line(of: token.positionAfterSkippingLeadingTrivia.utf8Offset)
        let site = SiteName.format(name: qualified(getter ? "get" : nil), file: fileID, line: line)
        let offset = brace.endPositionBeforeTrailingTrivia.utf8Offset
        bodies += 1
        let returnPoints =
            returns == .void || statements.isEmpty
            ? []
            : ImplicitReturn.insertionPoints(statements, neverFunctions: options.declarations.neverReturning)
        var folded = foldsExit && !async ? FoldedExit.valueEnd(statements, returnPoints: returnPoints) : nil
        // A type error in the whole value is reported at the operator: in build copies, only a value on one line
        // folds, so that the error keeps its line. Nor one that a `;` ends, which cannot start a line of its own
        // after `#sourceLocation`.
        if let end = folded, options.lineDirectiveFile != nil,
            lines.line(of: end) != lines.line(of: returnPoints[0]) || statements.last?.semicolon != nil
        {
            folded = nil
        }
        let exitType = ExitType.text(resultType)
        let redactsResult = options.values && exitType != nil && ValueCapture.redactsResult(of: resultOwner)
        let exitCode =
            options.values && exitType != nil
            ? ValueCapture.foldedExit(resultType: exitType!, redacted: redactsResult)
            : Marker.foldedExitCode(resultType: exitType)
        let values = options.values
        let arguments =
            values
            ? (parameters.map {
                ValueCapture.arguments(
                    $0, functionAliases: options.declarations.functionTypeAliases,
                    unsafeTypes: options.declarations.unsafeTypes)
            } ?? []) + assigned : []
        // A body made only of `#if` blocks may be empty in some build: a `defer` must not end it there.
        let mayBeEmpty = statements.allSatisfy { $0.item.is(IfConfigDeclSyntax.self) }
        // Values: what the call throws, through a `do`/`catch` around a `defer` body (`ThrownErrors`).
        let opening =
            values && folded == nil && !mayBeEmpty ? ThrownErrors.opening(throwsClause, statements, async: async) : nil
        let recordsValues = !arguments.isEmpty || opening != nil || values && foldsExit && exitType != nil
        let code =
            statements.isEmpty
            ? arguments.isEmpty
                ? Marker.emptyBodyCode(site: site, async: async)
                : ValueCapture.entry(site: site, arguments: arguments, async: async)
                    + (async ? " Trail.exit(__trail);" : " Trail.exit();")
            : recordsValues
                ? ValueCapture.entry(site: site, arguments: arguments, async: async)
                    + (folded != nil ? "" : Marker.exitCode(async: async, mayBeEmpty: mayBeEmpty)) + (opening ?? "")
                : folded != nil
                    ? Marker.foldedEntryCode(site: site)
                    : Marker.entryCode(site: site, async: async, mayBeEmpty: mayBeEmpty)
        // A value of an unsafe type passed to the exit operator must be marked `unsafe` under
        // `-strict-memory-safety`; where the body does not, the rewriter does, after any `return ` it inserts. No
        // mode warns of it, as the operator's use of the type is unsafe.
        let passesResult = folded != nil || options.values && foldsExit
        let unsafeResult =
            passesResult
            && resultType.map { ValueCapture.namesUnsafeType($0, options.declarations.unsafeTypes) } ?? false
        var unmarkedUnsafeValues: [Int] = []
        if unsafeResult, folded != nil, !FoldedExit.valueIsMarkedUnsafe(statements) {
            unmarkedUnsafeValues.append(returnPoints[0])
        }
        // Values: the results a body with a `defer` returns (`ReturnedValues`).
        if options.values, foldsExit, folded == nil, let exitType {
            let copies = options.lineDirectiveFile != nil
            let lines = self.lines
            let values = ReturnedValues.values(
                statements, implicitReturns: returnPoints, neverFunctions: options.declarations.neverReturning
            ) { value in
                copies
                    && lines.line(of: value.positionAfterSkippingLeadingTrivia.utf8Offset)
                        != lines.line(of: value.endPositionBeforeTrailingTrivia.utf8Offset)
            }
            for value in values {
                edits.append(
                    Edit(
                        offset: value.end,
                        text: Marker.wrap(
                            ValueCapture.returnedValue(resultType: exitType, async: async, redacted: redactsResult)))
                )
                if unsafeResult, !value.markedUnsafe { unmarkedUnsafeValues.append(value.start) }
            }
        }
        defer { for start in unmarkedUnsafeValues { edits.append(Edit(offset: start, text: Marker.wrap("unsafe "))) } }
        let closing = statements.lastToken(viewMode: .sourceAccurate)?.nextToken(viewMode: .sourceAccurate)
        guard let file = options.lineDirectiveFile, !Self.isInInterpolation(brace) else {
            edits.append(Edit(offset: offset, text: Marker.wrap(code)))
            if opening != nil, let closing {
                edits.append(
                    Edit(
                        offset: closing.positionAfterSkippingLeadingTrivia.utf8Offset,
                        text: Marker.wrap(ThrownErrors.closing(async: async))))
            }
            for point in returnPoints { edits.append(Edit(offset: point, text: Marker.explicitReturn)) }
            if let folded { edits.append(Edit(offset: folded, text: Marker.wrap(exitCode))) }
            return
        }
        let first = brace.nextToken(viewMode: .sourceAccurate)?.positionAfterSkippingLeadingTrivia.utf8Offset ?? offset
        let columns = Columns(file: file, lines: lines)
        let entry = columns.entry(code, at: offset, firstToken: first, returnsFirst: returnPoints.contains(first))
        edits.append(Edit(offset: offset, text: entry.text))
        for point in returnPoints where !(entry.returnsFirst && point == first) {
            edits.append(columns.explicitReturn(at: point))
        }
        if let folded, let closing { edits.append(columns.insertion(exitCode, at: folded, before: closing)) }
        // The closing brace keeps its column: a missing `return` is reported there.
        if opening != nil, let closing {
            let at = closing.positionAfterSkippingLeadingTrivia.utf8Offset
            edits.append(columns.insertion(ThrownErrors.closing(async: async), at: at, before: closing))
        }
    }

    /// A closure in a string interpolation: a line break there would end a one-line string literal.
    private static func isInInterpolation(_ token: TokenSyntax) -> Bool {
        var node = token.parent
        while let current = node {
            if current.is(ExpressionSegmentSyntax.self) { return true }
            node = current.parent
        }
        return false
    }
}
