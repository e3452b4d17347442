/// An attribute value: OTLP's AnyValue.
public enum AttributeValue: Sendable, Equatable {
    case string(String)
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case array([AttributeValue])
    case keyValues([Attribute])
}
