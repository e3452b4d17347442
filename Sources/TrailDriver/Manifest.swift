import Foundation
import SwiftParser
import SwiftSyntax
import TrailRewriter

/// A target literal in `targets: [...]`.
struct ManifestTarget {
    var name: String
    var kind: String
    var call: FunctionCallExprSyntax
    var folder: String

    func argument(_ label: String) -> LabeledExprSyntax? { call.argument(label) }
}

/// The parts of a manifest setup reads, found by parsing; anything else stays text.
struct Manifest {
    let path: String
    let undo: Bool
    let tree: SourceFileSyntax
    let converter: SourceLocationConverter
    /// Where the `traced` declaration goes: the end of the last top-level import.
    var afterImports = 0
    var traced: VariableDeclSyntax?
    var tracedUses = 0
    var packageCalls: [FunctionCallExprSyntax] = []
    var package: FunctionCallExprSyntax!
    var targets: [ManifestTarget] = []
    /// The `package:` name of swift-trail: the dependency's `name:`, else its identity.
    var identity = "swift-trail"
    var notes: [String] = []

    init(_ bytes: [UInt8], path: String, undo: Bool) throws(SourceError) {
        self.path = path
        self.undo = undo
        tree = Parser.parse(source: String(decoding: bytes, as: UTF8.self))
        converter = SourceLocationConverter(fileName: path, tree: tree)
        guard !tree.hasError else { throw refusal(tree, "Package.swift does not parse") }
        if let first = String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
            .split(separator: ":").last?.split(separator: ".").compactMap({
                Int($0.trimmingCharacters(in: .whitespaces))
            }),
            first.count >= 1, (first[0], first.count > 1 ? first[1] : 0) < (5, 6)
        {
            throw refusal(
                tree,
                "Context.environment needs swift-tools-version 5.6 or later; raise the first line to "
                    + "`// swift-tools-version:5.9` (if the package builds with it), then run setup again")
        }
        var lastImport: ImportDeclSyntax?
        for item in tree.statements {
            if let declaration = item.item.as(ImportDeclSyntax.self) { lastImport = declaration }
            if let variable = item.item.as(VariableDeclSyntax.self) {
                for binding in variable.bindings {
                    let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
                    if name == "traced" { traced = variable }
                    if name == "package", let call = binding.initializer?.value.as(FunctionCallExprSyntax.self),
                        call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text == "Package"
                    {
                        package = call
                    }
                }
            }
        }
        guard let lastImport else { throw refusal(tree, "Package.swift has no import") }
        afterImports = lastImport.endPositionBeforeTrailingTrivia.utf8Offset
        guard package != nil else { throw refusal(tree, "no `let package = Package(...)`") }
        let references = ManifestReferences(viewMode: .sourceAccurate)
        references.walk(tree)
        tracedUses = references.traced
        packageCalls = references.packages
        if let replaced = references.targetsReplacedByCode {
            throw refusal(replaced, "targets are replaced or changed by code")
        }
        if let added = references.targetsAddedByCode, !undo {
            // Targets appended in code (often under `#if os(macOS)`) keep their own form: the literal ones are set up.
            let location = added.startLocation(converter: converter, afterLeadingTrivia: true)
            notes.append(
                "\(path):\(location.line):\(location.column): note: targets added by code here are not set up; "
                    + "give them the pattern by hand to trace them")
        }
        if let traced,
            traced.bindings.first?.initializer?.value.tokenText != Self.tokens(#"Context.environment["TRAIL"] == "1""#)
        {
            throw refusal(traced, "`traced` is not `Context.environment[\"TRAIL\"] == \"1\"`")
        }
        if !undo {
            identity = try findTrail()
        }
        let array = try packageArray(
            "targets", missing: "Package(...) has no `targets:`",
            notLiteral: "`targets:` is not an array literal: the targets are built by code")
        if let added = references.targetsAddedByCode, array.elements.isEmpty {
            throw refusal(added, "targets are added by code, and none is written out")
        }
        for element in array.elements {
            guard let call = element.expression.as(FunctionCallExprSyntax.self),
                let member = call.calledExpression.as(MemberAccessExprSyntax.self),
                member.base == nil || member.base?.tokenText == "Target"
            else {
                throw refusal(element, "a target that is not a `.target(...)` literal: built by code")
            }
            let kind = member.declName.baseName.text
            guard let nameArgument = call.argument("name"), let name = Self.literal(nameArgument.expression) else {
                throw refusal(element, "a target whose name is not a string literal")
            }
            var folder = ""
            if let pathArgument = call.argument("path") {
                guard let relative = Self.literal(pathArgument.expression) else {
                    throw refusal(pathArgument, "target '\(name)': `path:` is not a string literal")
                }
                folder = self.folder + "/" + relative
            } else {
                let roots =
                    kind == "testTarget"
                    ? ["Tests", "Sources", "Source", "src", "srcs"] : ["Sources", "Source", "src", "srcs"]
                folder =
                    roots.map { self.folder + "/" + $0 + "/" + name }.first {
                        FileManager.default.fileExists(atPath: $0)
                    }
                    ?? self.folder + "/" + roots[0] + "/" + name
            }
            targets.append(ManifestTarget(name: name, kind: kind, call: call, folder: folder))
        }
    }

    /// The targets to set up: those named, or every regular and executable target with Swift sources (to undo:
    /// every target, of which those setup changed are undone).
    func chosen(_ names: [String], undo: Bool) throws(SourceError) -> [ManifestTarget] {
        let traceable = ["target", "executableTarget", "testTarget"]
        guard !names.isEmpty else {
            let kinds = undo ? traceable : ["target", "executableTarget"]
            return targets.filter { kinds.contains($0.kind) && $0.name != "Trail" && Self.hasSwift($0.folder) }
        }
        var result: [ManifestTarget] = []
        for name in names {
            guard let target = targets.first(where: { $0.name == name }) else {
                throw SourceError(path: path, message: "no target '\(name)' in the manifest")
            }
            guard traceable.contains(target.kind), Self.hasSwift(target.folder) else {
                throw refusal(target.call, "target '\(name)' is not a Swift target the plugin can trace")
            }
            result.append(target)
        }
        return result
    }

    static func hasSwift(_ folder: String) -> Bool {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return false }
        while let name = walker.nextObject() as? String {
            if name.hasSuffix(".swift") { return true }
        }
        return false
    }

    /// What the traced build compiles itself. A `.target` with a `main.swift` is an executable only while
    /// SwiftPM sees that file among its sources: it keeps it (untraced), or the module would be built as a
    /// library, where top-level code is an error. (An `.executableTarget` is one whatever its sources.)
    static func tracedSources(_ target: ManifestTarget) -> String {
        let keepsMain = target.kind == "target" && FileManager.default.fileExists(atPath: target.folder + "/main.swift")
        return keepsMain
            ? #"traced ? ["\#(PackageSetup.placeholder)", "main.swift"] : nil"#
            : #"traced ? ["\#(PackageSetup.placeholder)"] : nil"#
    }

    static func isSetUpSources(_ text: String?) -> Bool {
        text == tokens(#"traced ? ["_Trail.swift"] : nil"#)
            || text == tokens(#"traced ? ["_Trail.swift", "main.swift"] : nil"#)
    }
    var pluginsPattern: String {
        Self.tokens(#"traced ? [.plugin(name: "TrailPlugin", package: "\#(identity)")] : []"#)
    }

    func isSetUp(_ target: ManifestTarget) -> Bool {
        Self.isSetUpSources(target.argument("sources")?.expression.tokenText)
            && target.argument("plugins")?.expression.tokenText == pluginsPattern
    }

    /// The insertions that set up `target`, and what they add (for the placeholder's record).
    func insertions(_ target: ManifestTarget) throws(SourceError) -> ([Edit], [String]) {
        for label in ["sources", "plugins"] {
            if let argument = target.argument(label) {
                throw refusal(argument, "target '\(target.name)' already has `\(label):`, which setup would replace")
            }
        }
        let arguments = Array(target.call.arguments)
        guard target.call.rightParen != nil, arguments.allSatisfy({ $0.label != nil }) else {
            throw refusal(target.call, "target '\(target.name)' has an unlabeled argument or a trailing closure")
        }
        let separator = Self.separator(arguments.map(Syntax.init))
        func end(_ argument: LabeledExprSyntax) -> Int {
            argument.expression.endPositionBeforeTrailingTrivia.utf8Offset
        }
        var edits: [Edit] = []
        var added: [String] = []
        // Only traced builds depend on the runtime: an untraced build neither builds nor links it.
        let conditional = tracedProduct
        if let dependencies = target.argument("dependencies") {
            guard let array = dependencies.expression.as(ArrayExprSyntax.self) else {
                throw refusal(dependencies, "target '\(target.name)': `dependencies:` is not an array literal")
            }
            if !array.elements.contains(where: Self.isTrailProduct) {
                edits.append(
                    Edit(offset: array.endPositionBeforeTrailingTrivia.utf8Offset, text: " + (\(conditional))"))
                added.append("dependency")
            }
        } else {
            edits.append(Edit(offset: end(arguments[0]), text: ",\(separator)dependencies: \(conditional)"))
            added.append("dependencies")
        }
        let before = ["name", "dependencies", "path", "exclude"]
        let anchor = arguments.last { before.contains($0.label?.text ?? "") } ?? arguments[0]
        edits.append(Edit(offset: end(anchor), text: ",\(separator)sources: \(Self.tracedSources(target))"))
        edits.append(
            Edit(
                offset: end(arguments.last!),
                text: ",\(separator)plugins: traced ? [.plugin(name: \"TrailPlugin\", package: \"\(identity)\")] : []"))
        return (edits, added + ["sources", "plugins"])
    }

    /// The removals that undo setup of `target`, which its placeholder says added `record`.
    func removals(_ target: ManifestTarget, record: [String]) throws(SourceError) -> [Edit] {
        let arguments = Array(target.call.arguments)
        func removal(_ label: String) throws(SourceError) -> Edit {
            guard let index = arguments.firstIndex(where: { $0.label?.text == label }), index > 0 else {
                throw refusal(target.call, "target '\(target.name)' has no `\(label):` argument, which setup added")
            }
            let start = arguments[index - 1].expression.endPositionBeforeTrailingTrivia.utf8Offset
            return Edit(
                offset: start, length: arguments[index].expression.endPositionBeforeTrailingTrivia.utf8Offset - start)
        }
        guard Self.isSetUpSources(target.argument("sources")?.expression.tokenText),
            let plugins = target.argument("plugins")?.expression.tokenText,
            plugins.hasPrefix(Self.tokens(#"traced ? [.plugin(name: "TrailPlugin", package:"#))
        else {
            throw refusal(
                target.call,
                "target '\(target.name)' changed since 'trail setup': its `sources:` or `plugins:` is not setup's")
        }
        var edits = [try removal("sources"), try removal("plugins")]
        if record.contains("dependencies") || record.contains("dependency") {
            guard let dependencies = target.argument("dependencies") else {
                throw refusal(
                    target.call, "target '\(target.name)' has no `dependencies:` argument, which setup added to")
            }
            if record.contains("dependencies"),
                Self.sameProduct(dependencies.expression.tokenText, Self.tokens(tracedProduct))
            {
                edits.append(try removal("dependencies"))
            } else if let sequence = dependencies.expression.as(SequenceExprSyntax.self) {
                edits.append(try conditionalRemoval(sequence, target: target, whole: record.contains("dependencies")))
            } else if let array = dependencies.expression.as(ArrayExprSyntax.self) {
                edits.append(
                    try unconditionalRemoval(
                        array, target: target, whole: record.contains("dependencies"), removal: removal))
            } else {
                throw refusal(dependencies, "target '\(target.name)': `dependencies:` changed since 'trail setup'")
            }
        }
        return edits
    }

    /// `traced ? [.product(name: "Trail", ...)] : []`, what setup adds to a target's dependencies.
    var tracedProduct: String { #"traced ? [.product(name: "Trail", package: "\#(identity)")] : []"# }

    /// Token texts equal but for the `package:` name, which undo does not know (setup wrote the identity it found).
    static func sameProduct(_ text: String, _ pattern: String) -> Bool {
        func masked(_ tokens: String) -> String {
            var parts = tokens.components(separatedBy: #"package : ""#)
            for index in parts.indices.dropFirst() {
                if let close = parts[index].firstIndex(of: "\"") { parts[index] = String(parts[index][close...]) }
            }
            return parts.joined(separator: #"package : ""#)
        }
        return masked(text) == masked(pattern)
    }

    /// Removes ` + (traced ? [...] : [])` after the target's own dependency array.
    func conditionalRemoval(_ sequence: SequenceExprSyntax, target: ManifestTarget, whole: Bool) throws(SourceError)
        -> Edit
    {
        let elements = Array(sequence.elements)
        guard !whole, elements.count == 3, let array = elements[0].as(ArrayExprSyntax.self),
            elements[1].tokenText == "+", Self.sameProduct(elements[2].tokenText, Self.tokens("(\(tracedProduct))"))
        else {
            throw refusal(sequence, "target '\(target.name)': `dependencies:` changed since 'trail setup'")
        }
        let start = array.endPositionBeforeTrailingTrivia.utf8Offset
        return Edit(offset: start, length: sequence.endPositionBeforeTrailingTrivia.utf8Offset - start)
    }

    /// Removes the Trail product that earlier versions of setup added to the array itself.
    func unconditionalRemoval(
        _ array: ArrayExprSyntax, target: ManifestTarget, whole: Bool,
        removal: (String) throws(SourceError) -> Edit
    ) throws(SourceError) -> Edit {
        guard let index = array.elements.firstIndex(where: Self.isTrailProduct) else {
            throw refusal(
                target.call, "target '\(target.name)' has no Trail product in `dependencies:`, which setup added")
        }
        if whole {
            guard array.elements.count == 1 else {
                throw refusal(
                    array, "target '\(target.name)': `dependencies:` gained other elements since 'trail setup'")
            }
            return try removal("dependencies")
        }
        let next = array.elements.index(after: index)
        if index == array.elements.startIndex {
            let element = array.elements[index]
            let start = element.expression.positionAfterSkippingLeadingTrivia.utf8Offset
            // The only element: setup wrote it alone between the brackets.
            guard next == array.elements.endIndex else {
                throw refusal(array, "target '\(target.name)': the Trail product is no longer last in `dependencies:`")
            }
            return Edit(offset: start, length: element.expression.endPositionBeforeTrailingTrivia.utf8Offset - start)
        }
        let previous = array.elements[array.elements.index(index, offsetBy: -1)]
        let start = previous.expression.endPositionBeforeTrailingTrivia.utf8Offset
        return Edit(
            offset: start, length: array.elements[index].expression.endPositionBeforeTrailingTrivia.utf8Offset - start)
    }

    /// The swift-trail package, in `dependencies:` or added in code: named swift-trail, at a URL or path ending
    /// in swift-trail, or a folder whose manifest names the package swift-trail.
    func findTrail() throws(SourceError) -> String {
        let add = """
            add it to `dependencies:`, e.g. .package(name: "swift-trail", path: "<path to swift-trail>") or \
            .package(url: "<swift-trail URL>", from: "1.0.0")
            """
        for call in packageCalls {
            func value(_ label: String) -> String? { call.argument(label).flatMap { Self.literal($0.expression) } }
            let name = value("name")
            let location = value("url") ?? value("path")
            var last =
                location.map { ($0.hasSuffix("/") ? String($0.dropLast()) : $0) as NSString }?.lastPathComponent ?? ""
            if last.hasSuffix(".git") { last = String(last.dropLast(4)) }
            var isTrail = name == "swift-trail" || last.lowercased() == "swift-trail"
            if !isTrail, let local = value("path") {
                let manifest = local.hasPrefix("/") ? local + "/Package.swift" : folder + "/" + local + "/Package.swift"
                isTrail =
                    (try? String(contentsOfFile: manifest, encoding: .utf8))?.contains(#"name: "swift-trail""#) == true
            }
            if isTrail { return name ?? last }
        }
        let reason = "no swift-trail package among the manifest's dependencies; \(add)"
        if let dependencies = package.argument("dependencies") { throw refusal(dependencies, reason) }
        throw refusal(package, reason)
    }

    /// The package folder.
    var folder: String { (path as NSString).deletingLastPathComponent }

    /// The array literal given as `Package(label: [...])`.
    func packageArray(_ label: String, missing: String, notLiteral: String) throws(SourceError) -> ArrayExprSyntax {
        guard let argument = package.argument(label) else { throw refusal(package, missing) }
        guard let array = argument.expression.as(ArrayExprSyntax.self) else { throw refusal(argument, notLiteral) }
        return array
    }

    static func isTrailProduct(_ element: ArrayElementSyntax) -> Bool {
        guard let call = element.expression.as(FunctionCallExprSyntax.self),
            call.calledExpression.as(MemberAccessExprSyntax.self)?.declName.baseName.text == "product",
            let name = call.argument("name")
        else { return false }
        return literal(name.expression) == "Trail"
    }

    /// A string literal without interpolation.
    static func literal(_ expression: ExprSyntax) -> String? {
        guard let string = expression.as(StringLiteralExprSyntax.self), string.segments.count <= 1 else { return nil }
        guard let segment = string.segments.first else { return "" }
        return segment.as(StringSegmentSyntax.self)?.content.text
    }

    /// Between inserted arguments or elements: a new line at the indentation of the last one that starts a line,
    /// else a space.
    static func separator(_ items: [Syntax]) -> String {
        for item in items.reversed() {
            let trivia = item.leadingTrivia.description
            if let newline = trivia.lastIndex(of: "\n") {
                return "\n" + trivia[trivia.index(after: newline)...].prefix { $0 == " " || $0 == "\t" }
            }
        }
        return " "
    }

    static func tokens(_ source: String) -> String {
        Parser.parse(source: source).tokenText
    }

    func refusal(_ node: some SyntaxProtocol, _ reason: String) -> SourceError {
        let location = node.startLocation(converter: converter, afterLeadingTrivia: true)
        return SourceError(
            path: path, line: location.line, column: location.column,
            message: "cannot edit safely: \(reason)" + PackageSetup.byHand(identity, undo: undo))
    }
}
