/// A key and its value: OTLP's KeyValue.
public struct Attribute: Sendable, Equatable {
    public var key: String
    public var value: AttributeValue

    public init(_ key: String, _ value: AttributeValue) {
        self.key = key
        self.value = value
    }

    public init(_ key: String, _ text: String) { self.init(key, .string(text)) }
    public init<Number: BinaryInteger>(_ key: String, _ number: Number) {
        self.init(key, .int(Int64(truncatingIfNeeded: number)))
    }
}
