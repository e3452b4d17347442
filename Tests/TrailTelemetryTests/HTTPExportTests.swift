import Foundation
import Testing
import TrailTestSupport

@testable import TrailTelemetry

/// The OTLP/HTTP client against a receiver on the loopback interface.
@Suite struct HTTPExportTests {
    func spans(_ count: Int, into writer: OTLPWriter<Span>) throws {
        let trace = TraceID.process(wallClockStart: 1_700_000_000_000_000_000, pid: 42, host: "test")
        try writer.beginResource(ProcessResource(serviceName: "app", pid: 42))
        let root = SpanID.synchronousCall(slot: 0, enterPosition: 0)
        try writer.add(
            Span(traceID: trace, spanID: root, name: "root", startTimeUnixNano: 1000, endTimeUnixNano: 1_000_000))
        for index in 1 ..< count {
            try writer.add(
                Span(
                    traceID: trace, spanID: .synchronousCall(slot: 0, enterPosition: UInt64(2 * index)),
                    parentSpanID: root,
                    name: "child \(index)", startTimeUnixNano: 1000 + UInt64(index),
                    endTimeUnixNano: 2000 + UInt64(index),
                    attributes: Span.codeAttributes(
                        function: "f", file: "A/B.swift", line: index, threadID: 7, threadName: "main")))
        }
        try writer.endResource()
    }

    @Test func batchesBecomeOneRequestEachAndParseAsOTLP() throws {
        let receiver = try LoopbackReceiver()
        defer { receiver.stop() }
        let sink = OTLPHTTPSink(
            endpoint: try .base("http://127.0.0.1:\(receiver.port)", signal: .traces), encoding: .json)
        let writer = OTLPWriter<Span>(sink: sink, batchSize: 40)
        try spans(1000, into: writer)
        let summary = try writer.finish()
        #expect(summary.requests == 25 && summary.items == 1000)
        #expect(receiver.requests.count == 25)
        #expect(receiver.requests.allSatisfy { $0.path == "/v1/traces" })
        let file = Paths.temporaryDirectory("otlp-http") + "/requests.ndjson"
        try Data(receiver.requests.flatMap { $0.body + [10] }).write(to: URL(fileURLWithPath: file))
        #expect(
            try otlpCheck("traces", file, ["--spans", "1000", "--requests", "25"])
                == "ok=1 requests=25 resources=25 spans=1000 logs=0 orphans=0 outliving=0")
    }

    /// The same spans (events, links, status, every attribute type) as JSON and as protobuf, gzip or not: each
    /// protobuf body decodes with the official definitions to exactly its JSON request.
    @Test(arguments: [OTLPCompression.none, .gzip])
    func protobufBodiesAreTheJSONRequestsExactly(compression: OTLPCompression) throws {
        func export(_ encoding: OTLPEncoding) throws -> (
            bodies: [[UInt8]], contentTypes: [String], summary: ExportSummary
        ) {
            let receiver = try LoopbackReceiver()
            defer { receiver.stop() }
            let sink = OTLPHTTPSink(
                endpoint: try .base("http://127.0.0.1:\(receiver.port)", signal: .traces), encoding: encoding,
                compression: encoding == .json ? .none : compression)
            let writer = OTLPWriter<Span>(sink: sink, batchSize: 30)
            try spans(100, into: writer)
            let trace = TraceID(bytes: Array(1 ... 16))
            try writer.beginResource(
                ProcessResource(serviceName: "second", pid: 7, extra: [Attribute("deployment.environment", "test")]))
            var span = Span(
                traceID: trace, spanID: SpanID(0xfedc_ba98_7654_3210), parentSpanID: SpanID(1),
                name: "GET /items/{id} ✓",
                startTimeUnixNano: 1_700_000_000_000_000_000, endTimeUnixNano: 1_700_000_000_000_000_500,
                attributes: [
                    Attribute("s", .string("")), Attribute("b", .bool(false)), Attribute("i", .int(-1)),
                    Attribute("d", .double(0.25)), Attribute("a", .array([.int(0), .string("x")])),
                    Attribute("kv", .keyValues([Attribute("k", .bool(true))])),
                ],
                events: [SpanEvent.exception(type: "E", message: "m", stacktrace: nil, timeUnixNano: 5)],
                status: SpanStatus(code: .error, message: "declined"))
            span.kind = 2
            span.links = [SpanLink(traceID: trace, spanID: SpanID(3), attributes: [Attribute("reason", "retry")])]
            try writer.add(span)
            try writer.endResource()
            let summary = try writer.finish()
            return (receiver.requests.map(\.body), receiver.requests.map { $0.contentType ?? "" }, summary)
        }
        let json = try export(.json)
        let protobuf = try export(.protobuf)
        #expect(json.summary.requests == 4 && protobuf.summary.requests == 4 && protobuf.summary.items == 101)
        #expect(
            protobuf.contentTypes.allSatisfy { $0 == "application/x-protobuf" }
                && json.contentTypes.allSatisfy { $0 == "application/json" })
        try expectSame(.traces, protobuf: protobuf.bodies, json: json.bodies, gzipped: compression == .gzip)
        #expect(
            protobuf.summary.bytes * (compression == .gzip ? 3 : 1) < json.summary.bytes,
            "\(protobuf.summary.bytes) protobuf bytes, \(json.summary.bytes) JSON bytes")
    }

    /// Log records too (every attribute type, nested; an empty body; with and without ids and times): each
    /// protobuf body decodes with the official definitions to exactly its JSON request.
    @Test(arguments: [OTLPCompression.none, .gzip])
    func protobufLogBodiesAreTheJSONRequestsExactly(compression: OTLPCompression) throws {
        func export(_ encoding: OTLPEncoding) throws -> [[UInt8]] {
            let receiver = try LoopbackReceiver()
            defer { receiver.stop() }
            let sink = OTLPHTTPSink(
                endpoint: try .base("http://127.0.0.1:\(receiver.port)", signal: .logs), encoding: encoding,
                compression: encoding == .json ? .none : compression)
            let writer = OTLPWriter<LogRecord>(sink: sink, batchSize: 2)
            try writer.beginResource(
                ProcessResource(serviceName: "app", pid: 42, extra: [Attribute("deployment.environment", "test")]))
            let every = [
                Attribute("s", .string("é ✓")), Attribute("", .string("")), Attribute("b", .bool(false)),
                Attribute("i", .int(-1)),
                Attribute("d", .double(0.25)),
                Attribute("a", .array([.int(0), .array([]), .keyValues([Attribute("k", .bool(true))])])),
                Attribute("kv", .keyValues([Attribute("nested", .keyValues([Attribute("n", .string("1"))]))])),
            ]
            try writer.add(
                LogRecord(
                    timeUnixNano: 1_700_000_000_000_000_001, observedTimeUnixNano: 1_700_000_000_000_000_002,
                    severity: .info2,
                    severityText: "notice", body: "line ✓", attributes: every,
                    traceID: TraceID(bytes: Array(1 ... 16)), spanID: SpanID(0xfedc_ba98_7654_3210)))
            try writer.add(LogRecord(timeUnixNano: 0, observedTimeUnixNano: 5, severity: .unspecified, body: ""))
            try writer.endResource()
            try writer.beginResource(ProcessResource(serviceName: "second"))
            try writer.add(
                LogRecord(
                    timeUnixNano: 7, observedTimeUnixNano: 8, severity: .fatal, severityText: "critical",
                    body: String(repeating: "x", count: 300), attributes: [Attribute("exception.type", "SIGSEGV")]))
            try writer.endResource()
            #expect(try writer.finish().requests == 2)
            return receiver.requests.map(\.body)
        }
        try expectSame(.logs, protobuf: try export(.protobuf), json: try export(.json), gzipped: compression == .gzip)
    }

    /// otlp_check.py's verdict on protobuf bodies against the JSON requests of the same export.
    func expectSame(_ signal: TelemetrySignal, protobuf: [[UInt8]], json: [[UInt8]], gzipped: Bool) throws {
        let directory = Paths.temporaryDirectory("otlp-protobuf-\(signal.rawValue)")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data(json.flatMap { $0 + [10] }).write(to: URL(fileURLWithPath: directory + "/requests.ndjson"))
        var paths: [String] = []
        for (index, body) in protobuf.enumerated() {
            paths.append(directory + "/body-\(index).bin")
            try Data(body).write(to: URL(fileURLWithPath: paths[index]))
        }
        let result = try run(
            "python3",
            [Paths.packageRoot + "/Tests/otlp_check.py", "same", signal.rawValue, directory + "/requests.ndjson"]
                + paths)
        #expect(
            result.stdout.hasPrefix("same=1 requests=\(protobuf.count) gzipped=\(gzipped ? protobuf.count : 0)"),
            "\(result.stdout)\(result.stderr)")
    }

    /// One connection carries every request when the receiver keeps it; one it closed while idle is opened again,
    /// and nothing is lost.
    @Test(arguments: [LoopbackReceiver.Connections.keepAlive, .closeSilently, .close])
    func requestsShareAConnectionWhileTheReceiverKeepsIt(connections: LoopbackReceiver.Connections) throws {
        let receiver = try LoopbackReceiver(connections: connections)
        defer { receiver.stop() }
        let sink = OTLPHTTPSink(
            endpoint: try .base("http://127.0.0.1:\(receiver.port)", signal: .traces), retry: RetryPolicy(retries: 0))
        let writer = OTLPWriter<Span>(sink: sink, batchSize: 40)
        try spans(400, into: writer)
        #expect(try writer.finish().items == 400)
        #expect(receiver.requests.count == 10)
        #expect(receiver.connections == (connections == .keepAlive ? 1 : 10))
    }

    @Test func a503WithRetryAfterIsRetriedAfterThatLong() throws {
        // The first two answers are 503 with Retry-After: 7 seconds, then an HTTP date; then the receiver accepts.
        let receiver = try LoopbackReceiver { index in
            switch index {
            case 0: LoopbackReceiver.Answer(status: 503, headers: ["Retry-After: 7"], body: "busy")
            case 1: LoopbackReceiver.Answer(status: 429, headers: ["Retry-After: Thu, 01 Jan 2099 00:00:00 GMT"])
            default: LoopbackReceiver.Answer()
            }
        }
        defer { receiver.stop() }
        final class Waits: @unchecked Sendable { var seconds: [Double] = [] }
        let waits = Waits()
        let sink = OTLPHTTPSink(
            endpoint: try .base("http://127.0.0.1:\(receiver.port)", signal: .traces),
            pause: { waits.seconds.append($0) })
        let writer = OTLPWriter<Span>(sink: sink)
        try spans(3, into: writer)
        let summary = try writer.finish()
        #expect(summary.items == 3)
        #expect(receiver.requests.count == 3, "two refusals, then the same request accepted")
        #expect(waits.seconds == [7, 60], "Retry-After in seconds, then a far date capped at 60 s")
        #expect(Set(receiver.requests.map(\.body)).count == 1)
    }

    @Test func aRequestThatFinallyFailsIsAnErrorCountingWhatWasNotSent() throws {
        let receiver = try LoopbackReceiver { _ in LoopbackReceiver.Answer(status: 400, body: "bad span\nsecond line") }
        defer { receiver.stop() }
        let sink = OTLPHTTPSink(
            endpoint: try .base("http://127.0.0.1:\(receiver.port)", signal: .traces), pause: { _ in })
        let writer = OTLPWriter<Span>(sink: sink, batchSize: 10)
        try spans(25, into: writer)
        do {
            try writer.finish()
            Issue.record("a 400 must fail the export")
        } catch let failure as ExportFailure {
            #expect(failure.unsent == 25)
            #expect(
                failure.description
                    == "OTLP endpoint http://127.0.0.1:\(receiver.port)/v1/traces answered 400 Status: bad span; "
                    + "25 of 25 spans not sent")
        }
        #expect(receiver.requests.count == 1, "a 4xx is not retried, and the rest are not tried")
    }

    @Test func anUnreachableEndpointIsNamedAndTheExitIsNonZero() throws {
        let port = LoopbackReceiver.closedPort()
        let log = Paths.temporaryDirectory("unreachable") + "/app.log"
        try "2026-12-02T11:36:51.123456Z info app: hello (App/main.swift:3)\n".write(
            toFile: log, atomically: true, encoding: .utf8)
        let result = try run(
            Paths.trail, ["export", "--otlp-logs", log, "--endpoint", "http://127.0.0.1:\(port)", "--retries", "1"])
        #expect(result.status == 1)
        #expect(
            result.stderr.contains(
                "cannot reach OTLP endpoint http://127.0.0.1:\(port)/v1/logs: Connection refused (after 2 attempts); "
                    + "1 of 1 log records not sent"), "\(result.stderr)")
        let https = try run(Paths.trail, ["export", "--otlp-logs", log, "--endpoint", "https://127.0.0.1:\(port)"])
        #expect(https.status == 1 && https.stderr.contains("https is not supported"), "\(https.stderr)")
        let malformed = try run(
            Paths.trail, ["export", "--otlp-logs", log], environment: ["OTEL_RESOURCE_ATTRIBUTES": "oops"])
        #expect(
            malformed.status == 1 && malformed.stderr.contains("OTEL_RESOURCE_ATTRIBUTES=oops"), "\(malformed.stderr)")
    }
}
