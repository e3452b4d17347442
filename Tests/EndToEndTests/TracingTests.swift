import Foundation
import Testing
import TrailTestSupport

/// swift-distributed-tracing flows into Trail: the Server Sample's library opens spans through `withSpan` only,
/// and TrailTracer records them in the trace among the traced calls. Checked on the replay, against an expected
/// transcript, and on the OTLP export, parsed with the official definitions.
@Suite(.serialized) struct TracingTests {
    /// Each exported span, with its process's pid under "pid".
    static func spans(_ path: String) throws -> [[String: Any]] { try otlpSpans(inFile: path) }

    /// The replay's calls and spans without what changes from run to run: times, thread ids, thread hops, ids.
    static func transcript(_ replay: String) -> String {
        replay.split(separator: "\n").compactMap { line -> String? in
            guard let bar = line.range(of: "| ") else { return nil }
            var text = String(line[bar.upperBound...])
            if let hop = text.range(of: " [returned on ") { text = String(text[..<hop.lowerBound]) }
            text = text.replacingOccurrences(
                of: "[0-9a-f]{32}/[0-9a-f]{16}", with: "<trace>/<span>", options: .regularExpression)
            return text
        }.joined(separator: "\n") + "\n"
    }

    static func attribute(_ span: [String: Any], _ key: String) -> [String: Any]? {
        (span["attributes"] as? [[String: Any]])?.first { $0["key"] as? String == key }?["value"] as? [String: Any]
    }

    /// Each shape a span is opened in (SpanShapes.swift) nests with the traced calls around and inside it.
    @Test func spansAndTracedCallsFormOneTree() throws {
        let sample = try IntegrationTests.server()
        let logs = Paths.temporaryDirectory("span-logs")
        let traces = Paths.temporaryDirectory("span-traces")
        defer {
            try? FileManager.default.removeItem(atPath: logs)
            try? FileManager.default.removeItem(atPath: traces)
        }
        let result = try run(
            sample.products(scratch: "trail") + "/Server", ["--log-dir", logs, "spans"],
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": traces + "/%p.trace"], check: true)
        #expect(result.stdout == "traceparent well-formed\nmalformed traceparent ignored\n")
        let replay = try run(Paths.trail, ["replay", traces], check: true)
        let expected = try String(
            contentsOfFile: Paths.packageRoot + "/Tests/Fixtures/Spans/spans.replay", encoding: .utf8)
        #expect(Self.transcript(replay.stdout) == expected, "\(replay.stdout)")

        let export = traces + "/spans.json"
        _ = try run(Paths.trail, ["export", "--otlp", traces, "-o", export], check: true)
        let summary = try otlpCheck("traces", export)
        #expect(summary.hasPrefix("ok=1") && summary.contains(" orphans=0 "), "\(summary)")
        let spans = try Self.spans(export)
        let byID = Dictionary(
            spans.map { ($0["spanId"] as? String ?? "", $0) }, uniquingKeysWith: { first, _ in first })
        func span(_ name: String) throws -> [String: Any] {
            try #require(spans.first { $0["name"] as? String == name }, "no span \(name)")
        }
        func parent(_ name: String) throws -> String? {
            try (span(name)["parentSpanId"] as? String).flatMap { byID[$0]?["name"] as? String }
        }
        func children(_ name: String) throws -> [String] {
            let id = try span(name)["spanId"] as? String
            return spans.filter { $0["parentSpanId"] as? String == id }.compactMap { $0["name"] as? String }.sorted()
        }
        #expect(try parent("checkout") == "Server.Checkout.run()")
        #expect(try children("checkout") == ["Server.Checkout.total(_:)", "charge card"])
        let charge = try span("charge card")
        #expect(charge["kind"] as? Int == 3)
        #expect((charge["status"] as? [String: Any])?["code"] as? Int == 2)
        let exception = try #require((charge["events"] as? [[String: Any]])?.first)
        #expect(exception["name"] as? String == "exception")
        #expect(Self.attribute(exception, "exception.type")?["stringValue"] as? String == "Server.PaymentError")
        #expect(try children("charge card") == ["Server.Checkout.charge(_:)"])
        #expect(
            Self.attribute(charge, "code.function.name")?["stringValue"] as? String == "run()",
            "the function that opened it")
        #expect(Self.attribute(charge, "code.file.path")?["stringValue"] as? String == "Server/SpanShapes.swift")
        #expect(try parent("ship order") == "Server.Shipping.run()")
        #expect(
            try children("ship order") == [
                "Server.Shipping.label(_:)", "Server.Shipping.pickBox(items:)", "Server.Shipping.weigh(items:)",
            ])
        #expect(Self.attribute(try span("ship order"), "shipping.grams")?["intValue"] as? String == "790")
        #expect(try span("queued job 42")["kind"] as? Int == 4)
        let link = try #require((try span("follow-up")["links"] as? [[String: Any]])?.first)
        #expect(link["spanId"] as? String == (try span("queued job 42")["spanId"] as? String))
        #expect(Self.attribute(link, "reason")?["stringValue"] as? String == "retry")
        // Context through headers: the traced call that injected is the extracted span's parent.
        #expect(try parent("incoming") == "Server.Propagation.send(into:)")
        #expect(try span("incoming")["traceId"] as? String == (try span("outgoing")["traceId"] as? String))
    }

    /// The demo's four requests: each server span is a child of the client's span in the other process, in the
    /// client's trace, and the handler's traced calls are under it.
    @Test func eachRequestSpanJoinsTheClientsTrace() throws {
        let sample = try IntegrationTests.server()
        let logs = Paths.temporaryDirectory("request-logs")
        let traces = Paths.temporaryDirectory("request-traces")
        defer {
            try? FileManager.default.removeItem(atPath: logs)
            try? FileManager.default.removeItem(atPath: traces)
        }
        _ = try run(
            sample.products(scratch: "trail") + "/Server", ["--log-dir", logs, "demo"],
            environment: [
                "TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": traces + "/%p.trace", "TRAIL_LOG_FORMAT": "json",
            ], check: true)
        let export = traces + "/requests.json"
        _ = try run(Paths.trail, ["export", "--otlp", traces, "-o", export], check: true)
        let summary = try otlpCheck("traces", export)
        #expect(
            summary.hasPrefix("ok=1") && summary.contains(" resources=2 ") && summary.contains(" orphans=0 "),
            "\(summary)")
        let spans = try Self.spans(export)
        let byID = Dictionary(
            spans.map { ($0["spanId"] as? String ?? "", $0) }, uniquingKeysWith: { first, _ in first })
        let requests = spans.filter { $0["kind"] as? Int == 2 }
        #expect(
            requests.compactMap { $0["name"] as? String }.sorted() == [
                "GET /health", "GET /items/12", "GET /items/7", "GET /nowhere",
            ])
        for request in requests {
            let name = request["name"] as? String ?? ""
            let client = try #require(
                (request["parentSpanId"] as? String).flatMap { byID[$0] }, "\(name) has no parent")
            #expect(client["kind"] as? Int == 3 && client["name"] as? String == "GET", "\(name)")
            #expect(client["pid"] as? String != request["pid"] as? String, "\(name): the client is the other process")
            #expect(client["traceId"] as? String == request["traceId"] as? String, "\(name) is in the client's trace")
            #expect(
                Self.attribute(client, "url.path")?["stringValue"] as? String == Self.attribute(request, "url.path")?[
                    "stringValue"] as? String)
            let handlers = spans.filter { $0["parentSpanId"] as? String == request["spanId"] as? String }
            #expect(handlers.map { $0["name"] as? String } == ["Server.Routes.handle(_:)"], "\(name)")
            #expect(handlers.allSatisfy { $0["traceId"] as? String == request["traceId"] as? String })
        }
        // The handler's log lines name its call in the client's trace, so logs join the distributed trace.
        let quoted = try IntegrationTests.lines(inLogsOf: logs).compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        .filter { $0["message"] as? String == "quoted" }
        #expect(quoted.count == 2)
        for line in quoted {
            let call = try #require(byID[line["span_id"] as? String ?? ""], "\(line)")
            #expect(call["name"] as? String == "Server.Pricing.quote(item:)")
            #expect(call["traceId"] as? String == line["trace_id"] as? String)
            #expect(requests.contains { $0["traceId"] as? String == line["trace_id"] as? String })
        }
    }
}
