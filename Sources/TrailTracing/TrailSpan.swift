#if TrailTracing
public import Tracing
import CTrailShim
import Synchronization
import TrailFormat

/// One of TrailTracer's spans: recorded in the trace beside the automatic function spans, with its details
/// (attributes, events, errors, status, links) written when it ends. Thread-safe; `end` takes effect once.
public final class TrailSpan: Tracing.Span, Sendable {
    public let context: ServiceContext
    let handle: trail_span
    private let state: Mutex<State>

    struct State {
        var name: String
        var attributes: SpanAttributes = [:]
        var events: [SpanDetails.Event] = []
        var links: [SpanDetails.Remote] = []
        var status: SpanDetails.Status?
        var recording = true
    }

    init(name: String, context: ServiceContext, handle: trail_span) {
        self.context = context
        self.handle = handle
        state = Mutex(State(name: name))
    }

    /// The span's ids, as exported and as `inject` hands them on.
    public var spanContext: TrailSpanContext { context.trailSpanContext! }

    public var operationName: String {
        get { state.withLock { $0.name } }
        set { state.withLock { if $0.recording { $0.name = newValue } } }
    }

    public var attributes: SpanAttributes {
        get { state.withLock { $0.attributes } }
        set { state.withLock { if $0.recording { $0.attributes = newValue } } }
    }

    public var isRecording: Bool { state.withLock { $0.recording } }

    public func setStatus(_ status: SpanStatus) {
        let code: UInt8 = status.code == .ok ? 1 : 2
        state.withLock { state in
            // OTel: once OK, a status stays OK.
            if state.recording, state.status?.code != 1 {
                state.status = SpanDetails.Status(code: code, message: status.message)
            }
        }
    }

    public func addEvent(_ event: SpanEvent) {
        let recorded = SpanDetails.Event(
            name: event.name, time: event.nanosecondsSinceEpoch, attributes: Self.convert(event.attributes))
        state.withLock { if $0.recording { $0.events.append(recorded) } }
    }

    /// The semantic conventions' `exception` event.
    public func recordError<Instant: TracerInstant>(
        _ error: Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant
    ) {
        var converted = [
            SpanDetails.Attribute("exception.type", .string(String(reflecting: type(of: error)))),
            SpanDetails.Attribute("exception.message", .string(String(describing: error))),
        ]
        converted += Self.convert(attributes)
        let event = SpanDetails.Event(name: "exception", time: instant().nanosecondsSinceEpoch, attributes: converted)
        state.withLock { if $0.recording { $0.events.append(event) } }
    }

    public func addLink(_ link: SpanLink) {
        guard let other = link.context.trailSpanContext else { return }
        let remote = SpanDetails.Remote(
            traceID: other.traceID, spanID: other.spanID, sampled: other.sampled,
            attributes: Self.convert(link.attributes))
        state.withLock { if $0.recording { $0.links.append(remote) } }
    }

    /// Ends the span now: the trace's clock times it, as it does every call, so `instant` is not used.
    public func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        let ended: State? = state.withLock { state in
            guard state.recording else { return nil }
            state.recording = false
            return state
        }
        guard let ended, handle.word != 0 else { return }  // not recorded: nothing to write
        var details = SpanDetails()
        details.name = ended.name
        details.attributes = Self.convert(ended.attributes)
        details.events = ended.events
        details.links = ended.links
        details.status = ended.status
        TrailTracer.withEncoded(details) { trail_span_end(handle, $0.baseAddress, UInt32($0.count)) }
    }

    static func convert(_ attributes: SpanAttributes) -> [SpanDetails.Attribute] {
        var converted: [SpanDetails.Attribute] = []
        // SpanAttributes has forEach but is not a Sequence.
        // swift-format-ignore: ReplaceForEachWithForLoop
        attributes.forEach { key, value in converted.append(SpanDetails.Attribute(key, convert(value))) }
        return converted.sorted { $0.key < $1.key }
    }

    static func convert(_ value: SpanAttribute) -> SpanDetails.Value {
        switch value {
        case .int32(let number): .int(Int64(number))
        case .int64(let number): .int(number)
        case .int32Array(let numbers): .ints(numbers.map(Int64.init))
        case .int64Array(let numbers): .ints(numbers)
        case .double(let number): .double(number)
        case .doubleArray(let numbers): .doubles(numbers)
        case .bool(let flag): .bool(flag)
        case .boolArray(let flags): .bools(flags)
        case .string(let text): .string(text)
        case .stringArray(let texts): .strings(texts)
        case .stringConvertible(let value): .string(String(describing: value))
        case .stringConvertibleArray(let values): .strings(values.map { String(describing: $0) })
        default: .string("\(value)")
        }
    }
}
#endif
