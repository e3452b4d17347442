import Foundation

/// Streams spans or log records out as OTLP export requests (protobuf or JSON), in batches: memory is bounded by
/// the batch, never by how many items pass through.
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
    public let encoding: OTLPEncoding
    private let sink: any RequestSink
    /// Protobuf: the request's resources so far, each its Resource message and where its items start in
    /// `itemBytes` (they end where the next section's start), assembled when the request is sent.
    private var sections: [(resource: [UInt8], start: Int)] = []
    /// The request's items, each framed as field 2 of its scope (`spans`, `logRecords`), written in place.
    private let itemBytes = ProtobufBytes()
    private var resourceMessage: [UInt8]?
    private var requestBytes = 0

    private var resourceHeader: [UInt8]?
    private var request: [UInt8] = []
    private var itemsInRequest = 0
    private var sectionsInRequest = 0
    private var itemsInSection = 0
    private var sectionOpen = false
    private var summary = ExportSummary()

    /// Requests are encoded as the sink takes them (`RequestSink.encoding`).
    public init(sink: any RequestSink, batchSize: Int = 512, maxRequestBytes: Int = 4 << 20) {
        self.sink = sink
        self.encoding = sink.encoding
        self.batchSize = max(1, batchSize)
        self.maxRequestBytes = maxRequestBytes
    }

    /// Items added from now on belong to `resource`, until `endResource`.
    public func beginResource(_ resource: ProcessResource) throws {
        if resourceHeader != nil { try endResource() }
        if encoding == .protobuf { resourceMessage = resource.protobuf() }
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
        if itemsInRequest >= batchSize || request.count >= maxRequestBytes || requestBytes >= maxRequestBytes {
            try sendRequest()
        }
        if encoding == .protobuf {
            if !sectionOpen {
                sections.append((resourceMessage ?? [], itemBytes.count))
                sectionOpen = true
            }
            let before = itemBytes.count
            item.appendProtobuf(field: 2, to: itemBytes)  // an empty message is still an item
            requestBytes += itemBytes.count - before
            itemsInRequest += 1
            return
        }
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

    /// Sends what is pending now, without finishing (`--follow` sends as it goes).
    public func flush() throws {
        if itemsInRequest > 0 { try sendRequest() }
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
        if encoding == .json { request += Array("]}]}".utf8) }
        sectionOpen = false
    }

    private func sendRequest() throws {
        closeSection()
        let items = itemsInRequest
        let body: [UInt8]
        if encoding == .protobuf {
            // Export*ServiceRequest { resource_* = 1 }, Resource* { resource = 1, scope_* = 2 },
            // Scope* { scope = 1, items = 2 }.
            // Each section's items and its two messages' sizes first, then the request written in place.
            let scope = ProcessResource.scopeProtobuf()
            let parts = sections.indices.map { index -> (items: Range<Int>, scoped: Int, resourced: Int) in
                let items =
                    sections[index].start ..< (index + 1 < sections.count ? sections[index + 1].start : itemBytes.count)
                let scoped = ProtobufSize.framed(scope.count) + items.count
                return (
                    items, scoped, ProtobufSize.framed(sections[index].resource.count) + ProtobufSize.framed(scoped)
                )
            }
            body = [UInt8](protobufSize: parts.reduce(0) { $0 + ProtobufSize.framed($1.resourced) }) { out in
                for (section, part) in zip(sections, parts) {
                    out.header(1, size: part.resourced)
                    out.header(1, size: section.resource.count)
                    out.raw(section.resource)
                    out.header(2, size: part.scoped)
                    out.header(1, size: scope.count)
                    out.raw(scope)
                    out.raw(itemBytes.bytes(part.items))
                }
            }
            sections = []
            itemBytes.removeAll()
            requestBytes = 0
        } else {
            request += Array("]}".utf8)
            body = request
        }
        request = []
        itemsInRequest = 0
        sectionsInRequest = 0
        summary.requests += 1
        summary.items += items
        try sink.send(body, items: items, signal: Item.signal)
    }
}
