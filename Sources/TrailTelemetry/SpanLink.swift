/// A link to a span of this or another trace.
public struct SpanLink: Sendable {
    public var traceID: TraceID
    public var spanID: SpanID
    public var attributes: [Attribute]

    public init(traceID: TraceID, spanID: SpanID, attributes: [Attribute] = []) {
        self.traceID = traceID
        self.spanID = spanID
        self.attributes = attributes
    }
}
