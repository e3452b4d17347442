import Foundation

/// A span or a log record, which knows its OTLP/JSON and its protobuf message.
public protocol TelemetryItem: Sendable {
    static var signal: TelemetrySignal { get }
    func appendJSON(to bytes: inout [UInt8])
    func appendProtobuf(to bytes: inout [UInt8])
    /// The protobuf message framed as field `field` (tag, length, message), written in place into `buffer`.
    func appendProtobuf(field: UInt64, to buffer: ProtobufBytes)
}
