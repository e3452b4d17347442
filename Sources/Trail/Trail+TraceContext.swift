internal import CTrailShim
internal import TrailFormat

/// W3C trace context across services, without swift-distributed-tracing: a server runs a request's work inside
/// the caller's `traceparent`, and a client sends the current one on. Recorded as TrailTracing's spans are (a SPAN
/// chunk with a remote parent), as a context rather than a span: exporters put the calls inside it under the
/// remote parent, in its trace, and export nothing for it.
extension Trail {
    /// A W3C `traceparent` header's fields: the one parser and writer of them (TrailTracing's too).
    public struct TraceParent: Sendable, Hashable {
        /// TrailFormat's, which holds the rules.
        var fields: TrailFormat.TraceParent

        /// 16 bytes, not all zero.
        public var traceID: [UInt8] {
            get { fields.traceID }
            set { fields.traceID = newValue }
        }
        /// Not zero.
        public var spanID: UInt64 {
            get { fields.spanID }
            set { fields.spanID = newValue }
        }
        public var sampled: Bool {
            get { fields.sampled }
            set { fields.sampled = newValue }
        }

        public init(traceID: [UInt8], spanID: UInt64, sampled: Bool = true) {
            fields = TrailFormat.TraceParent(traceID: traceID, spanID: spanID, sampled: sampled)
        }

        /// Version 00 exactly, or a later version's first four fields; lower-case hex, no zero ids, not version
        /// ff; spaces and tabs around it allowed (`TrailFormat.TraceParent`). nil for anything else, which W3C says
        /// to ignore.
        public init?(_ header: String) {
            guard let fields = TrailFormat.TraceParent(header) else { return nil }
            self.fields = fields
        }

        /// `00-<32 hex>-<16 hex>-<01|00>`.
        public var header: String { fields.header }
    }

    struct RemoteContext: Sendable {
        var traceID: [UInt8]
        var spanID: UInt64
        var sampled: Bool
        /// The exported id of the traced call innermost when it began (0: none): a call made inside it is not.
        var flowParent: UInt64
        /// Its own exported id (0: not recorded): in a task, it is the innermost call until one is made inside it.
        var ownID: UInt64 = 0

        /// The span a header or log line names: a traced call made inside it, else the remote parent.
        func span(call: UInt64) -> UInt64 { call != 0 && call != flowParent && call != ownID ? call : spanID }
    }

    @TaskLocal static var remoteContext: RemoteContext?

    private static let contextSite: StaticString = "trace context"

    /// Runs `body` with its traced calls, and the tasks it starts, under the span `traceparent` names, in that
    /// trace: a server calls it in its request handler with the incoming header. A malformed header (W3C's rules)
    /// is ignored: `body` runs as it would without it.
    public static func withTraceContext<T>(traceparent: String, _ body: () throws -> T) rethrows -> T {
        guard let (context, handle) = begin(traceparent) else { return try body() }
        defer { if handle.word != 0 { trail_span_end(handle, nil, 0) } }
        return try $remoteContext.withValue(context) { try body() }
    }

    /// The async form: the calls of `body`'s task and of the child tasks it starts.
    public static func withTraceContext<T>(
        traceparent: String, isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async rethrows -> T {
        guard let (context, handle) = begin(traceparent) else { return try await body() }
        defer { if handle.word != 0 { trail_span_end(handle, nil, 0) } }
        return try await $remoteContext.withValue(context, operation: body, isolation: isolation)
    }

    /// The `traceparent` to send on an outgoing request: the innermost traced call in its trace, else the trace
    /// context or tracer span in effect; nil when there is none.
    public static var currentTraceparent: String? {
        var trace = [UInt8](repeating: 0, count: 16)
        var span: UInt64 = 0
        guard trace.withUnsafeMutableBufferPointer({ currentSpan($0.baseAddress!, &span) }) else { return nil }
        return TraceParent(traceID: trace, spanID: span, sampled: remoteContext?.sampled ?? true).header
    }

    /// The trace and span that a log line, an outgoing header or a child process names here: the innermost traced
    /// call's, or inside a trace context or tracer span, what it says. False when there is none.
    static func currentSpan(_ traceID: UnsafeMutablePointer<UInt8>, _ spanID: inout UInt64) -> Bool {
        let inCall = trail_current_span(traceID, &spanID) == 1
        if !inCall { spanID = 0 }
        return contextSpan(traceID, &spanID) || inCall
    }

    /// Inside a trace context or tracer span: the span to name instead of the innermost call `spanID` (0: none)
    /// (that call's own when it was made inside), and its trace. False outside one.
    static func contextSpan(_ traceID: UnsafeMutablePointer<UInt8>, _ spanID: inout UInt64) -> Bool {
        let named: (traceID: [UInt8], spanID: UInt64)? =
            if let context = remoteContext { (context.traceID, context.span(call: spanID)) } else {
                LogSpanContext.current?(spanID)
            }
        guard let named, named.traceID.count == 16 else { return false }
        for index in 0 ..< 16 { traceID[index] = named.traceID[index] }
        spanID = named.spanID
        return true
    }

    /// The runtime's C side asks contextSpan for log-mode lines and children's TRACEPARENT while a context or
    /// tracer span is open; set once, before the first one opens.
    static let contextHookInstalled: Void = trail_set_context_trace_hook { spanID, traceID in
        contextSpan(traceID, &spanID.pointee) ? 1 : 0
    }

    private static func begin(_ traceparent: String) -> (RemoteContext, trail_span)? {
        guard let (traceID, spanID, sampled) = parse(traceparent) else { return nil }
        _ = contextHookInstalled
        var trace = [UInt8](repeating: 0, count: 16)
        var call: UInt64 = 0
        let inCall = trail_current_span(&trace, &call) == 1
        var handle = trail_span(word: 0, start: 0)
        if trail_current_mode() != Int32(TRAIL_MODE_OFF.rawValue) {
            var details = SpanDetails()
            details.kind = .context
            details.remoteParent = SpanDetails.Remote(traceID: traceID, spanID: spanID, sampled: sampled)
            let site = UnsafeRawPointer(contextSite.utf8Start).assumingMemoryBound(to: CChar.self)
            handle = details.encoded().withUnsafeBufferPointer {
                trail_span_start(site, $0.baseAddress, UInt32($0.count), 1)
            }
        }
        var context = RemoteContext(traceID: traceID, spanID: spanID, sampled: sampled, flowParent: inCall ? call : 0)
        context.ownID = trail_span_handle_id(handle)
        return (context, handle)
    }

    /// W3C `traceparent`, by TrailFormat's one parser (its rules in `TrailFormat.TraceParent`).
    static func parse(_ header: String) -> (traceID: [UInt8], spanID: UInt64, sampled: Bool)? {
        TrailFormat.TraceParent(header).map { ($0.traceID, $0.spanID, $0.sampled) }
    }
}
