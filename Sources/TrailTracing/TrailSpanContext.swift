#if TrailTracing
public import ServiceContextModule
import Trail

/// The span a `ServiceContext` carries: one of TrailTracer's spans, or a parent from another process (an
/// extracted W3C `traceparent`). Ids are as exported (Docs/trace-format.md, "Span and trace ids").
public struct TrailSpanContext: Sendable, Hashable {
    /// 16 bytes.
    public var traceID: [UInt8]
    public var spanID: UInt64
    public var sampled: Bool
    /// From another process: extracted, not started here.
    public var isRemote: Bool
    /// The W3C `tracestate` that came with it, handed on as is.
    public var traceState: String?
    /// A span started here: its reader span id in this process's trace (0: not recorded), and the exported id
    /// of the traced call that was innermost when it started (0: none), so `inject` can tell whether a traced
    /// call made inside it is the innermost now.
    var readerSpanID: UInt64 = 0
    var flowParent: UInt64 = 0

    public init(
        traceID: [UInt8], spanID: UInt64, sampled: Bool = true, isRemote: Bool = false, traceState: String? = nil
    ) {
        self.traceID = traceID
        self.spanID = spanID
        self.sampled = sampled
        self.isRemote = isRemote
        self.traceState = traceState
    }

    /// `00-<trace id>-<span id>-<flags>`.
    public var traceparent: String { Trail.TraceParent(traceID: traceID, spanID: spanID, sampled: sampled).header }

    /// Parses a W3C `traceparent` (Trail.TraceParent's rules); nil for anything W3C says to ignore.
    public init?(traceparent: String, traceState: String? = nil) {
        guard let parent = Trail.TraceParent(traceparent) else { return nil }
        self.init(
            traceID: parent.traceID, spanID: parent.spanID, sampled: parent.sampled, isRemote: true,
            traceState: traceState)
    }
}

/// The key under which a `ServiceContext` carries a `TrailSpanContext`.
public enum TrailSpanContextKey: ServiceContextKey {
    public typealias Value = TrailSpanContext
    public static var nameOverride: String? { "trail-span-context" }
}

extension ServiceContext {
    /// The span this context carries, if TrailTracer started or extracted one.
    public var trailSpanContext: TrailSpanContext? {
        get { self[TrailSpanContextKey.self] }
        set { self[TrailSpanContextKey.self] = newValue }
    }
}

#endif
