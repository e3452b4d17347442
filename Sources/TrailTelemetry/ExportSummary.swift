import Foundation

/// What an export did.
public struct ExportSummary: Sendable, Equatable {
    public var requests = 0
    public var items = 0
    /// Items the receiver answered it rejected (OTLP partial success).
    public var rejected = 0
    /// Request bytes written or sent (compressed, when they were).
    public var bytes = 0

    /// "1.2 MiB", for summaries.
    public var size: String {
        bytes < 1 << 10
            ? "\(bytes) B"
            : bytes < 1 << 20
                ? String(format: "%.1f KiB", Double(bytes) / 1024)
                : String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }

    public init() {}
}
