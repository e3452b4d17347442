import SwiftSyntax

/// Qualified names in the form `Module.Type.Nested.method(label:_:)`, computed from syntax alone.
enum Naming {
    /// `name(a:_:)` for a function or initializer parameter list.
    static func signature(_ base: String, _ parameters: FunctionParameterListSyntax, isOperator: Bool = false) -> String
    {
        var labels = ""
        for parameter in parameters {
            labels += isOperator ? "_" : parameter.firstName.text
            labels += ":"
        }
        return "\(base)(\(labels))"
    }

    /// Subscripts have no argument label unless two names are written.
    static func subscriptSignature(_ parameters: FunctionParameterListSyntax) -> String {
        var labels = ""
        for parameter in parameters {
            labels += parameter.secondName == nil ? "_" : parameter.firstName.text
            labels += ":"
        }
        return "subscript(\(labels))"
    }

    static func function(_ decl: FunctionDeclSyntax) -> String {
        let isOperator: Bool
        switch decl.name.tokenKind {
        case .binaryOperator, .prefixOperator, .postfixOperator: isOperator = true
        default: isOperator = false
        }
        return signature(identifier(decl.name), decl.signature.parameterClause.parameters, isOperator: isOperator)
    }

    static func initializer(_ decl: InitializerDeclSyntax) -> String {
        signature("init", decl.signature.parameterClause.parameters)
    }

    /// A type as written in an extension, without generic arguments: `Array<Int>` and `[Int]` give `Array`.
    static func type(_ type: TypeSyntax) -> String {
        if let simple = type.as(IdentifierTypeSyntax.self) {
            return identifier(simple.name)
        }
        if let member = type.as(MemberTypeSyntax.self) {
            return Naming.type(member.baseType) + "." + identifier(member.name)
        }
        if type.is(ArrayTypeSyntax.self) { return "Array" }
        if type.is(DictionaryTypeSyntax.self) { return "Dictionary" }
        if type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return "Optional"
        }
        if let attributed = type.as(AttributedTypeSyntax.self) { return Naming.type(attributed.baseType) }
        return type.trimmedDescription
    }

    /// The identifier without backticks: `` `default` `` names `default`.
    static func identifier(_ token: TokenSyntax) -> String {
        let text = token.text
        if text.hasPrefix("`"), text.hasSuffix("`"), text.count >= 2 {
            return String(text.dropFirst().dropLast())
        }
        return text
    }

    /// The names bound by a property pattern: `x` for `var x`, `a, b` are rare and named by the first.
    static func binding(_ binding: PatternBindingSyntax) -> String {
        if let identifier = binding.pattern.as(IdentifierPatternSyntax.self) {
            return Naming.identifier(identifier.identifier)
        }
        return binding.pattern.trimmedDescription
    }

    /// `get`, `set`, `willSet`, `didSet`, `modify`, `read`, ... without the underscore of `_modify`.
    static func accessor(_ decl: AccessorDeclSyntax) -> String {
        let text = decl.accessorSpecifier.text
        return text.hasPrefix("_") ? String(text.dropFirst()) : text
    }
}
