import CZlib

/// OTEL_EXPORTER_OTLP_COMPRESSION's values.
public enum OTLPCompression: String, Sendable {
    case none, gzip
}
