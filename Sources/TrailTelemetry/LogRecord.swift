/// One log line or crash: OTLP's LogRecord.
public struct LogRecord: Sendable {
    /// When it happened; 0 when unknown.
    public var timeUnixNano: UInt64
    /// When the exporter read it.
    public var observedTimeUnixNano: UInt64
    public var severity: Severity
    /// The source's own name for the level (`info`, `critical`), as the data model asks.
    public var severityText: String?
    public var body: String
    public var attributes: [Attribute]
    public var traceID: TraceID?
    public var spanID: SpanID?

    public init(
        timeUnixNano: UInt64, observedTimeUnixNano: UInt64, severity: Severity, severityText: String? = nil,
        body: String, attributes: [Attribute] = [], traceID: TraceID? = nil, spanID: SpanID? = nil
    ) {
        self.timeUnixNano = timeUnixNano
        self.observedTimeUnixNano = observedTimeUnixNano
        self.severity = severity
        self.severityText = severityText
        self.body = body
        self.attributes = attributes
        self.traceID = traceID
        self.spanID = spanID
    }
}

extension LogRecord: TelemetryItem {
    public static let signal = TelemetrySignal.logs

    public func appendJSON(to bytes: inout [UInt8]) { OTLPJSON.append(to: &bytes, encode) }

    func encode(into json: inout OTLPJSON) {
        json.object { json in
            json.member("timeUnixNano", int64: timeUnixNano)
            json.member("observedTimeUnixNano", int64: observedTimeUnixNano)
            json.member("severityNumber", int32: severity.rawValue)
            if let severityText {
                json.member("severityText", string: severityText)
            }
            json.key("body")
            json.anyValue(.string(body))
            json.attributes(attributes)
            if let traceID, let spanID {
                json.member("traceId", hex: traceID)
                json.member("spanId", hex: spanID)
            }
        }
    }
}
