public struct SpanEvent: Sendable {
    public var name: String
    public var timeUnixNano: UInt64
    public var attributes: [Attribute]

    public init(name: String, timeUnixNano: UInt64, attributes: [Attribute] = []) {
        self.name = name
        self.timeUnixNano = timeUnixNano
        self.attributes = attributes
    }

    /// The semantic conventions' `exception` event: a crash seen from the spans it interrupted.
    public static func exception(type: String, message: String, stacktrace: String?, timeUnixNano: UInt64) -> SpanEvent
    {
        var attributes = [Attribute("exception.type", type), Attribute("exception.message", message)]
        if let stacktrace { attributes.append(Attribute("exception.stacktrace", stacktrace)) }
        return SpanEvent(name: "exception", timeUnixNano: timeUnixNano, attributes: attributes)
    }
}
