/// One traced call or tracer span: OTLP's Span.
public struct Span: Sendable {
    public var traceID: TraceID
    public var spanID: SpanID
    public var parentSpanID: SpanID?
    public var name: String
    /// OTLP's SpanKind: INTERNAL 1 (every traced call), SERVER 2, CLIENT 3, PRODUCER 4, CONSUMER 5.
    public var kind: Int32 = 1
    public var links: [SpanLink] = []
    public var startTimeUnixNano: UInt64
    public var endTimeUnixNano: UInt64
    public var attributes: [Attribute]
    public var events: [SpanEvent]
    public var status: SpanStatus

    public init(
        traceID: TraceID, spanID: SpanID, parentSpanID: SpanID? = nil, name: String, startTimeUnixNano: UInt64,
        endTimeUnixNano: UInt64, attributes: [Attribute] = [], events: [SpanEvent] = [], status: SpanStatus = .unset
    ) {
        self.traceID = traceID
        self.spanID = spanID
        self.parentSpanID = parentSpanID
        self.name = name
        self.startTimeUnixNano = startTimeUnixNano
        self.endTimeUnixNano = endTimeUnixNano
        self.attributes = attributes
        self.events = events
        self.status = status
    }

    /// The semantic conventions' code and thread attributes.
    public static func codeAttributes(function: String?, file: String?, line: Int?, threadID: Int?, threadName: String?)
        -> [Attribute]
    {
        var attributes: [Attribute] = []
        attributes.reserveCapacity(8)  // these five and the few a caller adds: one allocation rather than four
        if let function { attributes.append(Attribute("code.function.name", function)) }
        if let file { attributes.append(Attribute("code.file.path", file)) }
        if let line { attributes.append(Attribute("code.line.number", line)) }
        if let threadID { attributes.append(Attribute("thread.id", threadID)) }
        if let threadName, !threadName.isEmpty { attributes.append(Attribute("thread.name", threadName)) }
        return attributes
    }
}

extension Span: TelemetryItem {
    public static let signal = TelemetrySignal.traces

    public func appendJSON(to bytes: inout [UInt8]) { OTLPJSON.append(to: &bytes, encode) }

    func encode(into json: inout OTLPJSON) {
        json.object { json in
            json.member("traceId", hex: traceID)
            json.member("spanId", hex: spanID)
            if let parentSpanID {
                json.member("parentSpanId", hex: parentSpanID)
            }
            json.member("name", string: name)
            json.member("kind", int32: kind)
            json.member("startTimeUnixNano", int64: startTimeUnixNano)
            json.member("endTimeUnixNano", int64: endTimeUnixNano)
            json.attributes(attributes)
            if !events.isEmpty {
                json.key("events")
                json.array { json in
                    for event in events {
                        json.object { json in
                            json.member("timeUnixNano", int64: event.timeUnixNano)
                            json.member("name", string: event.name)
                            json.attributes(event.attributes)
                        }
                    }
                }
            }
            if !links.isEmpty {
                json.key("links")
                json.array { json in
                    for link in links {
                        json.object { json in
                            json.member("traceId", hex: link.traceID)
                            json.member("spanId", hex: link.spanID)
                            json.attributes(link.attributes)
                        }
                    }
                }
            }
            if status.code != .unset || status.message != nil {
                json.key("status")
                json.object { json in
                    if let message = status.message {
                        json.member("message", string: message)
                    }
                    json.member("code", int32: status.code.rawValue)
                }
            }
        }
    }
}
