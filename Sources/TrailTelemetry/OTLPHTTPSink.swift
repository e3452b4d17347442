import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Posts each request to an OTLP/HTTP receiver as protobuf (the default) or JSON, gzip-compressed when asked,
/// over one kept-alive connection, retrying as `RetryPolicy` says. Once a
/// request finally fails, the rest are not tried (a receiver that is down or refuses this data will not
/// change its mind), and `finish` throws the first failure with the count of what was not sent.
public final class OTLPHTTPSink: RequestSink {
    public let endpoint: OTLPEndpoint
    public let encoding: OTLPEncoding
    public let compression: OTLPCompression
    /// Bytes sent as request bodies (after compression), for the summary and the benchmarks.
    public private(set) var bytesSent = 0
    /// `--follow`: a receiver that is down or busy is waited for, however long (backoff up to
    /// `RetryPolicy.maxBackoff`), since the trace files keep what is not sent yet; a request the receiver refuses
    /// outright is dropped, counted and said through `report`, and the next ones are still sent.
    public var persistent = false
    public var report: (String) -> Void = { _ in }
    /// Items dropped in persistent mode.
    public private(set) var droppedItems = 0
    private var post: HTTPPost
    /// One deflate state for every request, with gzip.
    private lazy var gzip = GzipCompressor()
    private let sender = SenderThread()
    private let retry: RetryPolicy
    private let pause: (Double) -> Void
    private var failure: String?
    private var unsent = 0
    private var rejected = 0
    private var rejectionMessage: String?

    /// `timeout`: seconds per attempt, connecting and answering included. `pause` waits between attempts.
    public init(
        endpoint: OTLPEndpoint, headers: [(String, String)] = [], timeout: Double = 10,
        retry: RetryPolicy = RetryPolicy(),
        encoding: OTLPEncoding = .protobuf, compression: OTLPCompression = .none,
        pause: @escaping (Double) -> Void = { usleep(UInt32(min($0, 3600) * 1e6)) }
    ) {
        self.endpoint = endpoint
        self.encoding = encoding
        self.compression = compression
        self.post = HTTPPost(
            endpoint: endpoint, headers: headers + (compression == .gzip ? [("Content-Encoding", "gzip")] : []),
            timeout: timeout)
        self.retry = retry
        self.pause = pause
    }

    deinit { sender.stop() }

    /// Hands the request to the sender thread, which compresses and posts it while the next one is encoded (on
    /// two cores, gzip and the round trip then cost no wall time); at most one more waits, so memory stays bounded.
    /// Persistent mode (`--follow`) delivers in place: it saves its cursor once `flush` returns.
    public func send(_ request: [UInt8], items: Int, signal: TelemetrySignal) throws {
        if persistent {
            sender.drain()
            return deliver(request, items: items, signal: signal)
        }
        sender.enqueue { self.deliver(request, items: items, signal: signal) }
    }

    /// Compresses and posts one request, retrying as `retry` says; what failed is kept for `finish`.
    private func deliver(_ request: [UInt8], items: Int, signal: TelemetrySignal) {
        itemName = signal.itemName
        guard failure == nil else {
            unsent += items
            return
        }
        let body = compression == .gzip ? (gzip?.compress(request) ?? request) : request
        var attempt = 0
        while true {
            attempt += 1
            let attempts = attempt == 1 ? "1 attempt" : "\(attempt) attempts"
            var retryAfter: String?
            do throws(HTTPPost.Failure) {
                let response = try post.send(body, contentType: encoding.contentType)
                if (200 ..< 300).contains(response.status) {
                    bytesSent += body.count
                    countRejected(response.body, signal: signal)
                    return
                }
                let answer =
                    "OTLP endpoint \(endpoint) answered \(response.status) \(response.reason)"
                    + (Self.firstLine(response.body).map { ": \($0)" } ?? "")
                guard RetryPolicy.isRetryable(status: response.status), attempt <= retry.retries || persistent else {
                    return give(up: answer + (attempt > 1 ? " (after \(attempts))" : ""), items)
                }
                retryAfter = response.header("Retry-After")
            } catch {
                switch error {
                case .unreachable(let reason):
                    if persistent, attempt == 1 {
                        report("cannot reach OTLP endpoint \(endpoint): \(reason); retrying until it answers")
                    }
                    guard attempt <= retry.retries || persistent else {
                        return give(up: "cannot reach OTLP endpoint \(endpoint): \(reason) (after \(attempts))", items)
                    }
                case .closedEarly:
                    guard attempt <= retry.retries || persistent else {
                        return give(
                            up: "OTLP endpoint \(endpoint): the connection closed before an answer (after \(attempts))",
                            items)
                    }
                case .broken(let reason):
                    guard attempt <= retry.retries || persistent else {
                        return give(up: "OTLP endpoint \(endpoint): \(reason) (after \(attempts))", items)
                    }
                }
            }
            // A follower waits out an outage polling every few seconds at most, so it catches up soon after.
            let delay = retry.delay(retry: attempt, retryAfter: retryAfter)
            pause(persistent && retryAfter == nil ? min(delay, 4) : delay)
        }
    }

    public func finish(_ summary: ExportSummary) throws -> ExportSummary {
        sender.drain()
        var summary = summary
        summary.rejected = rejected
        summary.bytes = bytesSent
        if let failure {
            throw ExportFailure("\(failure); \(unsent) of \(summary.items) \(itemName) not sent", unsent: unsent)
        }
        if rejected > 0 {
            throw ExportFailure(
                "OTLP endpoint \(endpoint) rejected \(rejected) of \(summary.items) \(itemName)"
                    + (rejectionMessage.map { ": \($0)" } ?? ""), unsent: rejected)
        }
        return summary
    }

    private var itemName = "items"

    private func give(up message: String, _ items: Int) {
        if persistent {
            droppedItems += items
            report("\(message); \(items) \(itemName) dropped")
            return
        }
        failure = message
        unsent += items
    }

    /// OTLP partial success: `{"partialSuccess":{"rejectedSpans":"3","errorMessage":"…"}}`, or in protobuf,
    /// Export*ServiceResponse { partial_success = 1 { rejected = 1, error_message = 2 } }.
    private func countRejected(_ body: [UInt8], signal: TelemetrySignal) {
        if encoding == .protobuf {
            if let (count, message) = Self.partialSuccess(body) {
                rejected += count
                if let message, !message.isEmpty { rejectionMessage = message }
            }
            return
        }
        guard !body.isEmpty, let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let partial = object["partialSuccess"] as? [String: Any]
        else { return }
        let key = signal == .traces ? "rejectedSpans" : "rejectedLogRecords"
        let count = (partial[key] as? String).flatMap { Int($0) } ?? (partial[key] as? Int) ?? 0
        rejected += count
        if let message = partial["errorMessage"] as? String, !message.isEmpty { rejectionMessage = message }
    }

    static func partialSuccess(_ body: [UInt8]) -> (Int, String?)? {
        var reader = ProtobufReader(bytes: body[...])
        while let (field, value) = reader.next() {
            guard field == 1, case .bytes(let partial) = value else { continue }
            var inner = ProtobufReader(bytes: partial)
            var count = 0
            var message: String?
            while let (field, value) = inner.next() {
                if field == 1, case .varint(let number) = value { count = Int(truncatingIfNeeded: number) }
                if field == 2, case .bytes(let text) = value { message = String(decoding: text, as: UTF8.self) }
            }
            return (count, message)
        }
        return nil
    }

    static func firstLine(_ body: [UInt8]) -> String? {
        let line = String(decoding: body.prefix(2000), as: UTF8.self).split(separator: "\n").first.map {
            String($0.prefix(300))
        }
        return line?.isEmpty == false ? line : nil
    }
}

/// One thread that runs jobs in order, one at a time, with at most one more waiting (`enqueue` blocks until
/// the previous one was taken). Started at the first job.
final class SenderThread: @unchecked Sendable {
    private let condition = NSCondition()
    private var waiting: (() -> Void)?
    private var busy = false
    private var started = false
    private var stopping = false

    func enqueue(_ job: @escaping () -> Void) {
        condition.lock()
        defer { condition.unlock() }
        while waiting != nil { condition.wait() }
        waiting = job
        if !started {
            started = true
            Thread { self.run() }.start()
        }
        condition.broadcast()
    }

    /// Returns once every job handed over has run.
    func drain() {
        condition.lock()
        defer { condition.unlock() }
        while waiting != nil || busy { condition.wait() }
    }

    /// Ends the thread once its jobs have run.
    func stop() {
        condition.lock()
        defer { condition.unlock() }
        stopping = true
        condition.broadcast()
    }

    private func run() {
        condition.lock()
        while true {
            while waiting == nil && !stopping { condition.wait() }
            guard let job = waiting else { break }
            waiting = nil
            busy = true
            condition.broadcast()
            condition.unlock()
            job()
            condition.lock()
            busy = false
            condition.broadcast()
        }
        condition.unlock()
    }
}
