#if TrailTracing
public import Tracing
import CTrailShim
import Glibc
import Synchronization
import Trail
import TrailFormat

/// A swift-distributed-tracing `Tracer` whose spans are recorded in Trail's trace, beside the automatic
/// function spans: a `withSpan` is the parent of the traced calls made inside it and a child of the traced call
/// (or span) that opened it. `inject` and `extract` carry W3C `traceparent` and `tracestate`, so a library that
/// propagates context takes the trace to the next service. Bootstrap it once, at start:
///
///     InstrumentationSystem.bootstrap(TrailTracer())
///
/// Without TRAIL_TRACE=record nothing is recorded, but context still propagates (with random ids).
public struct TrailTracer: Tracer {
    public typealias Span = TrailSpan

    /// Also makes Trail's JSON log lines name the span in effect: a line inside a span whose parent is in
    /// another process carries that trace's id, so logs join the distributed trace.
    public init() {
        LogSpanContext.install { call in
            guard let span = ServiceContext.current?.trailSpanContext, !span.isRemote else { return nil }
            return (span.traceID, call != 0 && call != span.flowParent ? call : span.spanID)
        }
    }

    public func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext,
        ofKind kind: SpanKind, at instant: @autoclosure () -> Instant,
        function: String, file fileID: String, line: UInt
    ) -> TrailSpan {
        var context = context()
        let parent = context.trailSpanContext
        var start = SpanDetails()
        start.kind = Self.kind(kind)
        start.attributes = [SpanDetails.Attribute("code.function.name", .string(function))]
        if let parent {
            if parent.isRemote {
                start.remoteParent = SpanDetails.Remote(
                    traceID: parent.traceID, spanID: parent.spanID, sampled: parent.sampled)
            } else if parent.readerSpanID != 0 {
                start.localParent = parent.readerSpanID
            }
        }
        var callTrace = [UInt8](repeating: 0, count: 16)
        var innermost: UInt64 = 0
        let inCall = trail_current_span(&callTrace, &innermost) == 1
        var handle = trail_span(word: 0, start: 0)
        if trail_current_mode() != Int32(TRAIL_MODE_OFF.rawValue) {  // off: context only, nothing to record
            let site = SpanSites.site(name: operationName, file: fileID, line: line)
            handle = Self.withEncoded(start) { trail_span_start(site, $0.baseAddress, UInt32($0.count), 0) }
        }
        // `start` is the token
        let recorded = handle.word != 0 && trail_current_mode() == Int32(TRAIL_MODE_RECORD.rawValue)
        let readerID: UInt64 = recorded ? 1 << 63 | handle.start : 0
        var own = TrailSpanContext(
            traceID: parent?.traceID ?? Self.processTraceID() ?? Self.randomTraceID(),
            spanID: handle.word != 0 ? trail_span_handle_id(handle) : Self.randomSpanID(),
            sampled: parent?.sampled ?? true, traceState: parent?.traceState)
        own.readerSpanID = readerID
        own.flowParent = inCall ? innermost : 0
        context.trailSpanContext = own
        return TrailSpan(name: operationName, context: context, handle: handle)
    }

    public func activeSpan(identifiedBy context: ServiceContext) -> TrailSpan? { nil }

    public func forceFlush() { trail_trace_flush() }

    /// Reads `traceparent` (and `tracestate`); a malformed one is ignored, as W3C trace context says.
    public func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
    )
    where Extract.Carrier == Carrier {
        guard let header = extractor.extract(key: "traceparent", from: carrier),
            let remote = TrailSpanContext(
                traceparent: header, traceState: extractor.extract(key: "tracestate", from: carrier))
        else { return }
        context.trailSpanContext = remote
    }

    /// Writes `traceparent` (and `tracestate`) for the innermost span: a traced call made inside the context's
    /// span, else that span, else the current traced call in this process's trace.
    public func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
    )
    where Inject.Carrier == Carrier {
        var callTrace = [UInt8](repeating: 0, count: 16)
        var call: UInt64 = 0
        let inCall = trail_current_span(&callTrace, &call) == 1
        var outgoing: TrailSpanContext
        if var span = context.trailSpanContext {
            if !span.isRemote, inCall, call != span.flowParent { span.spanID = call }
            outgoing = span
        } else if let header = Trail.currentTraceparent {
            // No span of ours in the context: the traced call or Trail.withTraceContext in effect, as Trail says.
            injector.inject(header, forKey: "traceparent", into: &carrier)
            return
        } else {
            return
        }
        outgoing.isRemote = false
        injector.inject(outgoing.traceparent, forKey: "traceparent", into: &carrier)
        if let state = outgoing.traceState, !state.isEmpty {
            injector.inject(state, forKey: "tracestate", into: &carrier)
        }
    }

    static func kind(_ kind: SpanKind) -> SpanDetails.Kind {
        switch kind {
        case .server: .server
        case .client: .client
        case .producer: .producer
        case .consumer: .consumer
        case .internal: .internal
        }
    }

    /// Encoded details, cut to what one SPAN chunk carries: attributes and events go first, then links.
    static func withEncoded<Result>(_ details: SpanDetails, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        var encoded = details.encoded()
        if encoded.count > TraceLayout.spanDetailsMax {
            var cut = details
            cut.attributes = [SpanDetails.Attribute("trail.details.cut", .bool(true))]
            cut.events = []
            cut.links = []
            cut.status = details.status.map {
                SpanDetails.Status(code: $0.code, message: $0.message.map { String($0.prefix(1024)) })
            }
            cut.name = details.name.map { String($0.prefix(1024)) }
            encoded = cut.encoded()
        }
        return encoded.withUnsafeBufferPointer(body)
    }

    static func processTraceID() -> [UInt8]? {
        var id = [UInt8](repeating: 0, count: 16)
        return trail_process_trace_id(&id) == 1 ? id : nil
    }

    static func randomTraceID() -> [UInt8] {
        let high = RandomIDs.next()
        let low = RandomIDs.next()
        return (0 ..< 16).map { UInt8(truncatingIfNeeded: ($0 < 8 ? high : low) >> (56 - 8 * UInt64($0 % 8))) }
    }

    static func randomSpanID() -> UInt64 { RandomIDs.next() }
}

/// Ids when nothing is recorded: a counter through SplitMix64's finalizer from a random seed, never 0; a fork's
/// child takes a new seed. Drawing 16 random bytes per span cost more than recording one.
enum RandomIDs {
    static let seed = Atomic<UInt64>(0)
    static let counter = Atomic<UInt64>(0)
    static let started: Bool = {
        seed.store(UInt64.random(in: .min ... .max), ordering: .relaxed)
        pthread_atfork(nil, nil) { RandomIDs.seed.store(UInt64.random(in: .min ... .max), ordering: .relaxed) }
        return true
    }()

    static func next() -> UInt64 {
        _ = started
        let count = counter.add(1, ordering: .relaxed).newValue
        var z = seed.load(ordering: .relaxed) &+ count &* 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        z ^= z >> 31
        return z == 0 ? 1 : z
    }
}

#endif
