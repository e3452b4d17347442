import TrailTrace

extension Span {
    /// A call's recorded values as span attributes (Docs/opentelemetry.md, "Values"): each argument as
    /// `code.function.argument.<name>`, its result as `code.function.return_value`, what it threw as
    /// `code.function.thrown`, each the text `trail replay` shows (a string quoted, `<redacted>` as recorded).
    public static func valueAttributes(_ values: [CallValue]) -> [Attribute] {
        values.map { value in
            switch value.role {
            case .argument: Attribute("code.function.argument." + value.name, value.text)
            case .result: Attribute("code.function.return_value", value.text)
            case .thrown: Attribute("code.function.thrown", value.text)
            }
        }
    }
}
