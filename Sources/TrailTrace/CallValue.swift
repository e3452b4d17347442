import TrailFormat

/// One recorded value of a synchronous call (values built in, Docs/trace-format.md "Values"), decoded once when
/// the reader meets it: an argument after the call's ENTER, its result before its EXIT. Viewers find a call's
/// values in `TraceProcess.callValues` by its span id, from its first child's start until its exit.
public struct CallValue: Sendable, Equatable {
    public var role: ValueRole
    /// The argument label a call shows (`n`, `_`, `from`); empty for a result.
    public var label: String
    /// The parameter's name (`start` for `from start: Int`); empty for a result.
    public var name: String
    /// The written type, from the descriptor.
    public var type: String
    /// As `ValueText` shows it: `30`, `"text"`, `nil`, `<redacted>`, `<Type>`.
    public var text: String

    public init(role: ValueRole, label: String, name: String, type: String, text: String) {
        self.role = role
        self.label = label
        self.name = name
        self.type = type
        self.text = text
    }

    /// `value` with its descriptor (`"from start: Int"`, `"-> Int"`).
    init(_ value: ValueRecord.Value, descriptor: String) {
        let type = ValueText.type(ofDescriptor: descriptor)
        var label = ""
        var name = ""
        if value.role == .argument {
            label = ValueText.label(ofDescriptor: descriptor)
            let names = descriptor.prefix { $0 != ":" }.split(separator: " ")
            name = names.last.map(String.init) ?? label
        }
        // An error is shown as Swift prints it, `ParseError.badHeader`, not as a quoted string.
        let text =
            value.role == .thrown && value.tag.isString
            ? ValueText.escaped(value.bytes, quoted: false) + (Int(value.payload >> 32) > value.bytes.count ? "…" : "")
            : ValueText.format(value, type: type)
        self.init(role: value.role, label: label, name: name, type: type, text: text)
    }

    /// The name of a call with these values in its parentheses, as it was written: `App.fib(n:)` and `n: 30` give
    /// `App.fib(n: 30)`, an unlabelled argument shows its value alone. A call without arguments keeps its name; a
    /// name without parentheses (a setter, `App.count.set`) gets them: `App.count.set(newValue: 3)`.
    public static func callName(_ name: String, _ values: [CallValue]) -> String {
        let arguments = values.filter { $0.role == .argument }
        guard !arguments.isEmpty else { return name }
        let list = arguments.map { $0.label == "_" || $0.label.isEmpty ? $0.text : $0.label + ": " + $0.text }
        guard let close = name.lastIndex(of: ")"), let open = name[..<close].lastIndex(of: "(") else {
            return name + "(" + list.joined(separator: ", ") + ")"
        }
        return name[...open] + list.joined(separator: ", ") + name[close...]
    }

    /// What follows a call that returned a value (` = 832040`) or threw (` throws ParseError.badHeader`); empty for
    /// none.
    public static func outcome(_ values: [CallValue]) -> String {
        guard let last = values.last(where: { $0.role != .argument }) else { return "" }
        return (last.role == .thrown ? " throws " : " = ") + last.text
    }
}
