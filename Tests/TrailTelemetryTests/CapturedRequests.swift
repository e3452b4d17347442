import Foundation
import Testing
import TrailTelemetry
import TrailTestSupport

/// Requests kept in memory as JSON, as a receiver would take them, for followers run in process.
final class CapturedRequests: RequestSink {
    var encoding: OTLPEncoding { .json }
    var requests: [[UInt8]] = []

    func send(_ request: [UInt8], items: Int, signal: TelemetrySignal) throws { requests.append(request) }
    func finish(_ summary: ExportSummary) throws -> ExportSummary { summary }

    func objects() throws -> [[String: Any]] {
        try requests.map { try #require(JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]) }
    }

    /// Every log record's body, in the order sent.
    func bodies() throws -> [String] {
        try objects().flatMap { object in
            (object["resourceLogs"] as? [[String: Any]] ?? []).flatMap { resource in
                (resource["scopeLogs"] as? [[String: Any]] ?? []).flatMap { scope in
                    (scope["logRecords"] as? [[String: Any]] ?? []).map { record in
                        (record["body"] as? [String: Any])?["stringValue"] as? String ?? ""
                    }
                }
            }
        }
    }

    /// Every span's name, in the order sent.
    func spanNames() throws -> [String] { try objects().flatMap(otlpSpans).map { $0["name"] as? String ?? "" } }
}
