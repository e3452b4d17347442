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
        try writer.add(Span(traceID: trace, spanID: root, name: "root", startTimeUnixNano: 1000, endTimeUnixNano: 1_000_000))
        for index in 1 ..< count {
            try writer.add(Span(traceID: trace, spanID: .synchronousCall(slot: 0, enterPosition: UInt64(2 * index)), parentSpanID: root,
                                name: "child \(index)", startTimeUnixNano: 1000 + UInt64(index), endTimeUnixNano: 2000 + UInt64(index),
                                attributes: Span.codeAttributes(function: "f", file: "A/B.swift", line: index, threadID: 7, threadName: "main")))
        }
        try writer.endResource()
    }

    @Test func batchesBecomeOneRequestEachAndParseAsOTLP() throws {
        let receiver = try LoopbackReceiver()
        defer { receiver.stop() }
        let sink = OTLPHTTPSink(endpoint: try .base("http://127.0.0.1:\(receiver.port)", signal: .traces))
        let writer = OTLPWriter<Span>(sink: sink, batchSize: 40)
        try spans(1000, into: writer)
        let summary = try writer.finish()
        #expect(summary.requests == 25 && summary.items == 1000)
        #expect(receiver.requests.count == 25)
        #expect(receiver.requests.allSatisfy { $0.path == "/v1/traces" })
        let file = Paths.temporaryDirectory("otlp-http") + "/requests.ndjson"
        try Data(receiver.requests.flatMap { $0.body + [10] }).write(to: URL(fileURLWithPath: file))
        #expect(try otlpCheck("traces", file, ["--spans", "1000", "--requests", "25"])
            == "ok=1 requests=25 resources=25 spans=1000 logs=0 orphans=0 outliving=0")
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
        let sink = OTLPHTTPSink(endpoint: try .base("http://127.0.0.1:\(receiver.port)", signal: .traces), pause: { waits.seconds.append($0) })
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
        let sink = OTLPHTTPSink(endpoint: try .base("http://127.0.0.1:\(receiver.port)", signal: .traces), pause: { _ in })
        let writer = OTLPWriter<Span>(sink: sink, batchSize: 10)
        try spans(25, into: writer)
        do {
            try writer.finish()
            Issue.record("a 400 must fail the export")
        } catch let failure as ExportFailure {
            #expect(failure.unsent == 25)
            #expect(failure.description == "OTLP endpoint http://127.0.0.1:\(receiver.port)/v1/traces answered 400 Status: bad span; "
                + "25 of 25 spans not sent")
        }
        #expect(receiver.requests.count == 1, "a 4xx is not retried, and the rest are not tried")
    }

    @Test func anUnreachableEndpointIsNamedAndTheExitIsNonZero() throws {
        let port = LoopbackReceiver.closedPort()
        let log = Paths.temporaryDirectory("unreachable") + "/app.log"
        try "2026-12-02T11:36:51.123456Z info app: hello (App/main.swift:3)\n".write(toFile: log, atomically: true, encoding: .utf8)
        let result = try run(Paths.trail, ["export", "--otlp-logs", log, "--endpoint", "http://127.0.0.1:\(port)", "--retries", "1"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot reach OTLP endpoint http://127.0.0.1:\(port)/v1/logs: Connection refused (after 2 attempts); "
            + "1 of 1 log records not sent"), "\(result.stderr)")
        let https = try run(Paths.trail, ["export", "--otlp-logs", log, "--endpoint", "https://127.0.0.1:\(port)"])
        #expect(https.status == 1 && https.stderr.contains("https is not supported"), "\(https.stderr)")
        let malformed = try run(Paths.trail, ["export", "--otlp-logs", log], environment: ["OTEL_RESOURCE_ATTRIBUTES": "oops"])
        #expect(malformed.status == 1 && malformed.stderr.contains("OTEL_RESOURCE_ATTRIBUTES=oops"), "\(malformed.stderr)")
    }
}
