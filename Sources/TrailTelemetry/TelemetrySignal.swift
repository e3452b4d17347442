import Foundation

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
