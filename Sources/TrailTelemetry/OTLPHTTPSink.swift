#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Posts each request to an OTLP/HTTP receiver as `application/json`, retrying as `RetryPolicy` says. Once a
/// request finally fails, the rest are not tried (a receiver that is down or refuses this data will not
/// change its mind), and `finish` throws the first failure with the count of what was not sent.
public final class OTLPHTTPSink: RequestSink {
    public let endpoint: OTLPEndpoint
    private let post: HTTPPost
    private let retry: RetryPolicy
    private let pause: (Double) -> Void
    private var failure: String?
    private var unsent = 0
    private var rejected = 0
    private var rejectionMessage: String?

    /// `timeout`: seconds per attempt, connecting and answering included. `pause` waits between attempts.
    public init(endpoint: OTLPEndpoint, headers: [(String, String)] = [], timeout: Double = 10, retry: RetryPolicy = RetryPolicy(),
                pause: @escaping (Double) -> Void = { usleep(UInt32(min($0, 3600) * 1e6)) }) {
        self.endpoint = endpoint
        self.post = HTTPPost(endpoint: endpoint, headers: headers, timeout: timeout)
        self.retry = retry
        self.pause = pause
    }

    public func send(_ request: [UInt8], items: Int, signal: TelemetrySignal) throws {
        itemName = signal.itemName
        guard failure == nil else {
            unsent += items
            return
        }
        var attempt = 0
        while true {
            attempt += 1
            let attempts = attempt == 1 ? "1 attempt" : "\(attempt) attempts"
            var retryAfter: String?
            do {
                let response = try post.send(request, contentType: "application/json")
                if (200 ..< 300).contains(response.status) {
                    countRejected(response.body, signal: signal)
                    return
                }
                let answer = "OTLP endpoint \(endpoint) answered \(response.status) \(response.reason)"
                    + (Self.firstLine(response.body).map { ": \($0)" } ?? "")
                guard RetryPolicy.isRetryable(status: response.status), attempt <= retry.retries else {
                    return give(up: answer + (attempt > 1 ? " (after \(attempts))" : ""), items)
                }
                retryAfter = response.header("Retry-After")
            } catch .unreachable(let reason) {
                guard attempt <= retry.retries else { return give(up: "cannot reach OTLP endpoint \(endpoint): \(reason) (after \(attempts))", items) }
            } catch .broken(let reason) {
                guard attempt <= retry.retries else { return give(up: "OTLP endpoint \(endpoint): \(reason) (after \(attempts))", items) }
            }
            pause(retry.delay(retry: attempt, retryAfter: retryAfter))
        }
    }

    public func finish(_ summary: ExportSummary) throws -> ExportSummary {
        var summary = summary
        summary.rejected = rejected
        if let failure {
            throw ExportFailure("\(failure); \(unsent) of \(summary.items) \(itemName) not sent", unsent: unsent)
        }
        if rejected > 0 {
            throw ExportFailure("OTLP endpoint \(endpoint) rejected \(rejected) of \(summary.items) \(itemName)"
                + (rejectionMessage.map { ": \($0)" } ?? ""), unsent: rejected)
        }
        return summary
    }

    private var itemName = "items"

    private func give(up message: String, _ items: Int) {
        failure = message
        unsent += items
    }

    /// OTLP partial success: `{"partialSuccess":{"rejectedSpans":"3","errorMessage":"…"}}`.
    private func countRejected(_ body: [UInt8], signal: TelemetrySignal) {
        guard !body.isEmpty, let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              let partial = object["partialSuccess"] as? [String: Any] else { return }
        let key = signal == .traces ? "rejectedSpans" : "rejectedLogRecords"
        let count = (partial[key] as? String).flatMap { Int($0) } ?? (partial[key] as? Int) ?? 0
        rejected += count
        if let message = partial["errorMessage"] as? String, !message.isEmpty { rejectionMessage = message }
    }

    static func firstLine(_ body: [UInt8]) -> String? {
        let line = String(decoding: body.prefix(2000), as: UTF8.self).split(separator: "\n").first.map { String($0.prefix(300)) }
        return line?.isEmpty == false ? line : nil
    }
}
