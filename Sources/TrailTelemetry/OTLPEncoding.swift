import Foundation

/// OTLP/HTTP's two encodings, by their OTEL_EXPORTER_OTLP_PROTOCOL names.
public enum OTLPEncoding: String, Sendable {
    case protobuf = "http/protobuf"
    case json = "http/json"

    public var contentType: String { self == .protobuf ? "application/x-protobuf" : "application/json" }
}
