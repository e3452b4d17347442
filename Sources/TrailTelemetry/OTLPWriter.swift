/// Streams spans or log records out as OTLP/JSON export requests, in batches: memory is bounded by the batch,
/// never by how many items pass through.
///
/// A trace reader feeds it one process at a time:
///
///     let writer = OTLPWriter<Span>(sink: sink)                 // sink: OTLPFileSink or OTLPHTTPSink
///     for process in processes {
///         try writer.beginResource(ProcessResource(serviceName: app, pid: pid, ...))
///         for call in process.calls {                           // in any order; parents need not come first
///             try writer.add(Span(traceID: .process(...), spanID: .synchronousCall(...), ...))
///         }
///         try writer.endResource()
///     }
///     let summary = try writer.finish()                          // throws what could not be sent, with counts
///
/// Each request is `{"resourceSpans":[{"resource":…,"scopeSpans":[{"scope":{"name":"swift-trail"},"spans":[…]}]}]}`
/// (`resourceLogs`/`scopeLogs`/`logRecords` for logs). A request closes after `batchSize` items or
/// `maxRequestBytes`; a resource still open carries on in the next request, and small resources share one.
public final class OTLPWriter<Item: TelemetryItem> {
    public let batchSize: Int
    public let maxRequestBytes: Int
    private let sink: any RequestSink

    private var resourceHeader: [UInt8]?
    private var request: [UInt8] = []
    private var itemsInRequest = 0
    private var sectionsInRequest = 0
    private var itemsInSection = 0
    private var sectionOpen = false
    private var summary = ExportSummary()

    public init(sink: any RequestSink, batchSize: Int = 512, maxRequestBytes: Int = 4 << 20) {
        self.sink = sink
        self.batchSize = max(1, batchSize)
        self.maxRequestBytes = maxRequestBytes
    }

    /// Items added from now on belong to `resource`, until `endResource`.
    public func beginResource(_ resource: ProcessResource) throws {
        if resourceHeader != nil { try endResource() }
        var json = OTLPJSON()
        json.object { json in
            json.key("resource")
            json.object { json in json.attributes(resource.attributes) }
            json.key(Item.signal.scopesKey)
            json.raw("[")
            json.object { json in
                json.key("scope")
                json.object { json in
                    json.member("name", string: ProcessResource.sdkName)
                    json.member("version", string: ProcessResource.sdkVersion)
                }
                json.key(Item.signal.itemsKey)
                json.raw("[")
            }
        }
        // The object was closed by the builder: reopen it by dropping the two closing braces.
        resourceHeader = Array(json.bytes.dropLast(2))
    }

    public func add(_ item: Item) throws {
        guard let resourceHeader else { preconditionFailure("OTLPWriter.add before beginResource") }
        if itemsInRequest >= batchSize || request.count >= maxRequestBytes { try sendRequest() }
        if request.isEmpty { request = Array(#"{"\#(Item.signal.resourcesKey)":["#.utf8) }
        if !sectionOpen {
            if sectionsInRequest > 0 { request.append(44) }
            request += resourceHeader
            sectionOpen = true
            sectionsInRequest += 1
            itemsInSection = 0
        }
        if itemsInSection > 0 { request.append(44) }
        item.appendJSON(to: &request)
        itemsInSection += 1
        itemsInRequest += 1
    }

    public func endResource() throws {
        closeSection()
        resourceHeader = nil
    }

    /// Sends what is left and reports what went where; throws `ExportFailure` when anything was not sent.
    @discardableResult
    public func finish() throws -> ExportSummary {
        if itemsInRequest > 0 { try sendRequest() }
        resourceHeader = nil
        return try sink.finish(summary)
    }

    private func closeSection() {
        guard sectionOpen else { return }
        request += Array("]}]}".utf8)
        sectionOpen = false
    }

    private func sendRequest() throws {
        closeSection()
        request += Array("]}".utf8)
        let items = itemsInRequest
        let body = request
        request = []
        itemsInRequest = 0
        sectionsInRequest = 0
        summary.requests += 1
        summary.items += items
        try sink.send(body, items: items, signal: Item.signal)
    }
}

/// What an export did.
public struct ExportSummary: Sendable, Equatable {
    public var requests = 0
    public var items = 0
    /// Items the receiver answered it rejected (OTLP partial success).
    public var rejected = 0

    public init() {}
}

/// Spans or log records: which request, keys and path they go with.
public enum TelemetrySignal: String, Sendable {
    case traces, logs

    /// The OTLP/HTTP path.
    public var path: String { "/v1/\(rawValue)" }
    var resourcesKey: StaticString { self == .traces ? "resourceSpans" : "resourceLogs" }
    var scopesKey: StaticString { self == .traces ? "scopeSpans" : "scopeLogs" }
    var itemsKey: StaticString { self == .traces ? "spans" : "logRecords" }
    /// How a summary counts them.
    public var itemName: String { self == .traces ? "spans" : "log records" }
}

/// A span or a log record, which knows its OTLP/JSON.
public protocol TelemetryItem: Sendable {
    static var signal: TelemetrySignal { get }
    func appendJSON(to bytes: inout [UInt8])
}

/// Where whole requests go: a file (`OTLPFileSink`) or an OTLP/HTTP receiver (`OTLPHTTPSink`).
public protocol RequestSink: AnyObject {
    func send(_ request: [UInt8], items: Int, signal: TelemetrySignal) throws
    /// After the last request: the summary, completed, or the failure that lost items.
    func finish(_ summary: ExportSummary) throws -> ExportSummary
}
