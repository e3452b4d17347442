import SwiftSyntax

/// What a build with values (`InstrumentOptions.values`) inserts to record a call's arguments and result. Each
/// argument is passed by its name to `Trail.value(descriptor, name)`, a statement of its own inside the branch
/// the entry takes only when the call records values: whichever overload it picks, it reads the parameter once,
/// before the body runs, and its result is discarded, so it can change no expression of the body. The
/// descriptor, `"label name: Type"` (`"n: Int"`, `"_ path: String"`), names the value in the trace, and the
/// redaction list is matched against its label and name.
enum ValueCapture {
    /// One parameter: its descriptor literal's text and the name the body knows it by; nil for one whose value
    /// is never read, recorded by its written type alone so that the values shown keep their places.
    struct Argument: Equatable {
        var descriptor: String
        var name: String?
        /// Written as one of the standard pointer types, or an optional of one: recorded by its address
        /// (`Trail.pointer`), which no overload of `Trail.value` may take (see ValueArguments.swift).
        var pointer = false
        /// Its type names an `@unsafe` one: read as `unsafe Trail.value(…)`, which `-strict-memory-safety`
        /// requires, and which no mode warns of, as the reference itself is unsafe.
        var unsafe = false
        /// Recorded as `<redacted>` whatever its descriptor says: a new value of a property named like a secret.
        var secret = false
    }

    /// The value a `set` or `willSet` accessor is given (`newValue`, or the name it writes), of the property's or
    /// subscript's written type: an argument of the accessor, `Shelf.count.set(newValue: 3)`. Not `didSet`'s
    /// `oldValue`, which a body that names it makes Swift read first.
    static func assignedValue(
        named name: String, type: TypeSyntax, owner: String, functionAliases: Set<String> = [],
        unsafeTypes declared: Set<String> = []
    ) -> Argument {
        let read = recordable(type) && !namesFunctionAlias(type, functionAliases)
        return Argument(
            descriptor: "\(name): \(typeText(type))", name: read ? name : nil, pointer: namesPointer(type),
            unsafe: read && namesUnsafeType(type, declared), secret: redactsResult(of: owner))
    }

    /// The `@unsafe` types of the standard library and `_Concurrency` (from their interfaces, Swift 6.2 on).
    static let unsafeTypes: Set<String> = [
        "UnsafePointer", "UnsafeMutablePointer", "UnsafeRawPointer", "UnsafeMutableRawPointer", "UnsafeBufferPointer",
        "UnsafeMutableBufferPointer", "UnsafeRawBufferPointer", "UnsafeMutableRawBufferPointer", "OpaquePointer",
        "Unmanaged", "CVaListPointer", "AutoreleasingUnsafeMutablePointer", "UnsafeContinuation", "UnsafeCurrentTask",
        "UnownedSerialExecutor", "UnownedTaskExecutor",
    ]

    /// Whether `type` names one of `unsafeTypes` or of the module's (`Declarations.unsafeTypes`) anywhere in it:
    /// `[UnsafeRawPointer]` and `Buffer?` are unsafe too.
    static func namesUnsafeType(_ type: TypeSyntax, _ declared: Set<String>) -> Bool {
        type.tokens(viewMode: .sourceAccurate).contains { token in
            guard case .identifier(let name) = token.tokenKind, unsafeTypes.contains(name) || declared.contains(name)
            else { return false }
            return !isInOpaqueType(token, under: type)
        }
    }

    /// `some Sequence<UnsafeRawPointer>`: a constraint of an opaque type, which does not make the value unsafe.
    private static func isInOpaqueType(_ token: TokenSyntax, under root: TypeSyntax) -> Bool {
        var node = token.parent
        while let current = node, current.id != root.id {
            if current.as(SomeOrAnyTypeSyntax.self)?.someOrAnySpecifier.tokenKind == .keyword(.some) { return true }
            node = current.parent
        }
        return root.as(SomeOrAnyTypeSyntax.self)?.someOrAnySpecifier.tokenKind == .keyword(.some)
    }

    /// The parameters of a function or initializer, in order. Not read: those without a name in the
    /// body (`_: Int`), functions and `@autoclosure`s (the fallback would have to take a closure that may not
    /// escape, and an autoclosure is never evaluated for it), and parameter packs.
    /// `functionAliases`: the module's type aliases of function types (`Declarations.functionTypeAliases`): a
    /// parameter of one is a non-escaping closure too, unless `@escaping`.
    static func arguments(
        _ parameters: FunctionParameterListSyntax, functionAliases: Set<String> = [],
        unsafeTypes declared: Set<String> = []
    ) -> [Argument] {
        // A subscript's parameter has no argument label unless two names are written: `values[0]`.
        let ofSubscript = parameters.parent?.parent?.is(SubscriptDeclSyntax.self) == true
        return parameters.map { parameter in
            let name = (parameter.secondName ?? parameter.firstName).text
            let label = ofSubscript && parameter.secondName == nil ? "_" : parameter.firstName.text
            let names = label == name ? label : "\(label) \(name)"
            let ellipsis = parameter.ellipsis == nil ? "" : "..."
            let descriptor = "\(names): \(typeText(parameter.type))\(ellipsis)"
            let read =
                name != "_" && recordable(parameter.type)
                && (parameter.ellipsis != nil || !namesFunctionAlias(parameter.type, functionAliases))
            // A keyword may name a parameter (`extension: String`); the body must write it `` `extension` ``.
            let reference = reservedWords.contains(name) ? "`\(name)`" : name
            return Argument(
                descriptor: descriptor, name: read ? reference : nil,
                pointer: parameter.ellipsis == nil && namesPointer(parameter.type),
                unsafe: read && namesUnsafeType(parameter.type, declared))
        }
    }

    static let pointerTypes: Set<String> = [
        "UnsafePointer", "UnsafeMutablePointer", "UnsafeRawPointer", "UnsafeMutableRawPointer",
    ]

    /// `UnsafePointer<T>`, `Swift.UnsafeRawPointer?` and the like, whatever attributes or specifiers precede it.
    private static func namesPointer(_ type: TypeSyntax) -> Bool {
        var base = withoutAttributes(type).base
        if let optional = base.as(OptionalTypeSyntax.self) {
            base = optional.wrappedType
        } else if let unwrapped = base.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            base = unwrapped.wrappedType
        }
        guard let named = nominal(base), named.module == nil || named.module == "Swift" else { return false }
        return pointerTypes.contains(named.name)
    }

    /// The type under its attributes and specifiers, and whether one of them is `@escaping`.
    private static func withoutAttributes(_ type: TypeSyntax) -> (base: TypeSyntax, escaping: Bool) {
        var base = type
        var escaping = false
        while let attributed = base.as(AttributedTypeSyntax.self) {
            escaping = escaping || attributed.attributes.contains { $0.trimmedDescription == "@escaping" }
            base = attributed.baseType
        }
        return (base, escaping)
    }

    /// `Name` or `Module.Name` (generic arguments aside): the name, and what qualifies it.
    private static func nominal(_ type: TypeSyntax) -> (module: String?, name: String)? {
        if let identifier = type.as(IdentifierTypeSyntax.self) { return (nil, identifier.name.text) }
        if let member = type.as(MemberTypeSyntax.self) { return (member.baseType.trimmedDescription, member.name.text) }
        return nil
    }

    /// The keywords that an expression must write in backticks to name a parameter.
    static let reservedWords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows",
        "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer",
        "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where",
        "while", "Any", "as", "await", "false", "is", "nil", "super", "throws", "true", "try",
    ]

    /// The toolchain's public aliases of function types, which no scan of the package finds
    /// (`subscript(_: UnboundedRange)`, swift-nio's `readChunks(in: UnboundedRange)`; Swift Testing's matcher).
    static let toolchainFunctionAliases: Set<String> = ["UnboundedRange", "KnownIssueMatcher"]

    /// `Handler` or `Module.Handler` where `Handler` is a function type's alias, not marked `@escaping`.
    private static func namesFunctionAlias(_ type: TypeSyntax, _ aliases: Set<String>) -> Bool {
        let (base, escaping) = withoutAttributes(type)
        guard !escaping, let name = nominal(base)?.name else { return false }
        return aliases.contains(name) || toolchainFunctionAliases.contains(name)
    }

    /// The result's descriptor, `-> Type`.
    static func resultDescriptor(_ type: String) -> String { "-> \(type)" }

    private static func recordable(_ type: TypeSyntax) -> Bool {
        if isPack(type) { return false }
        for token in type.tokens(viewMode: .sourceAccurate) {
            switch token.tokenKind {
            case .arrow, .keyword(.each), .keyword(.repeat): return false
            case .identifier("autoclosure"): return false
            default: continue
            }
        }
        return true
    }

    private static func isPack(_ type: TypeSyntax) -> Bool {
        type.is(PackExpansionTypeSyntax.self) || type.is(PackElementTypeSyntax.self)
    }

    /// The written type on one line, without `inout`, ownership or `sending` specifiers and attributes.
    static func typeText(_ type: TypeSyntax) -> String {
        var base = type
        while let attributed = base.as(AttributedTypeSyntax.self) { base = attributed.baseType }
        var text = ""
        var spaced = false
        for token in base.tokens(viewMode: .sourceAccurate) {
            if !text.isEmpty, spaced || !token.leadingTrivia.isEmpty { text += " " }
            text += token.text
            spaced = !token.trailingTrivia.isEmpty
        }
        return text
    }

    /// Labels and names whose arguments are never passed: recorded as `<redacted>` (`Trail.redacted`). A word
    /// matches anywhere in the label or name, in any case (`apiKey`, `sessionToken`); `TRAIL_VALUES_REDACT` adds
    /// words at run time.
    static let redactedWords = ["password", "secret", "token", "key", "credential", "authorization", "cookie"]

    static func isRedacted(_ argument: Argument) -> Bool {
        let names = argument.descriptor.prefix { $0 != ":" }.lowercased()
        return redactedWords.contains { names.contains($0) }
    }

    /// The entry of a synchronous body that records `arguments`: `if Trail.tracing, Trail.enterWithValues(site,
    /// count) { … };`, or `Trail.enterValues(site);` for a body that records only its result or error. The mode
    /// is a condition of its own so that, tracing off, unoptimized code branches as `Trail.enter` does. An async body's:
    /// `let __trail = Trail.enterAsync(site, values: count); if __trail.recordsValues { … };`.
    static func entry(site: String, arguments: [Argument], async: Bool = false) -> String {
        if async {
            let span = "let __trail = Trail.enterAsync(\(Marker.literal(site)), values: \(arguments.count));"
            return arguments.isEmpty ? span : span + " if __trail.recordsValues { \(recorders(arguments)) };"
        }
        if arguments.isEmpty { return "Trail.enterValues(\(Marker.literal(site)));" }
        let entry = "Trail.enterWithValues(\(Marker.literal(site)), \(arguments.count))"
        return "if Trail.tracing, \(entry) { \(recorders(arguments)) };"
    }

    /// One recorder per argument, in order.
    private static func recorders(_ arguments: [Argument]) -> String {
        let values = arguments.map { argument in
            guard let name = argument.name else { return "Trail.unread(\(Marker.literal(argument.descriptor)))" }
            if argument.secret || isRedacted(argument) {
                return "Trail.redacted(\(Marker.literal(argument.descriptor)))"
            }
            let recorder = (argument.unsafe ? "unsafe " : "") + (argument.pointer ? "Trail.pointer" : "Trail.value")
            return "\(recorder)(\(Marker.literal(argument.descriptor)), \(name))"
        }
        return values.joined(separator: "; ")
    }

    /// Whether the result of the function or property `name` (`apiToken(for:)`, `sessionKey`) is a secret: its
    /// base name holds a word of the list, as an argument's label or name would.
    static func redactsResult(of name: String) -> Bool {
        let base = name.prefix { $0 != "(" }.lowercased()
        return redactedWords.contains { base.contains($0) }
    }

    /// What follows a returned value where the exit is a `defer` (`ReturnedValues`), typed as `resultType`.
    static func returnedValue(resultType: String, async: Bool = false, redacted: Bool = false) -> String {
        let span = async ? ", __trail" : ""
        let operand = redacted ? "RedactedResult" : "TypedResult"
        return " ~>> Trail.\(operand)<\(resultType)>(\(Marker.literal(resultDescriptor(resultType)))\(span))"
    }

    /// A folded body's exit that records its result, typed as `resultType`.
    static func foldedExit(resultType: String, redacted: Bool = false) -> String {
        let operand = redacted ? "RedactedValueExit" : "TypedValueExit"
        return " ~>| Trail.\(operand)<\(resultType)>(\(Marker.literal(resultDescriptor(resultType))))"
    }
}
