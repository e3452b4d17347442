import Foundation

/// Where whole requests go: a file (`OTLPFileSink`) or an OTLP/HTTP receiver (`OTLPHTTPSink`).
public protocol RequestSink: AnyObject {
    /// The encoding requests must have: a file holds JSON lines; a receiver takes either.
    var encoding: OTLPEncoding { get }
    func send(_ request: [UInt8], items: Int, signal: TelemetrySignal) throws
    /// After the last request: the summary, completed, or the failure that lost items.
    func finish(_ summary: ExportSummary) throws -> ExportSummary
}
