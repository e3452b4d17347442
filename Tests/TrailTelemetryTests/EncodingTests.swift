import Foundation
import Testing

@testable import TrailTelemetry

/// Keeps every request it is given, for checking what the writer produced.
final class MemorySink: RequestSink {
    var requests: [[UInt8]] = []
    var encoding: OTLPEncoding { .json }
    func send(_ request: [UInt8], items: Int, signal: TelemetrySignal) throws { requests.append(request) }
    func finish(_ summary: ExportSummary) throws -> ExportSummary { summary }

    func objects() throws -> [[String: Any]] {
        try requests.map { try JSONSerialization.jsonObject(with: Data($0)) as! [String: Any] }
    }
}

@Suite struct EncodingTests {
    let trace = TraceID.process(wallClockStart: 0x0102_0304_0506_0708, pid: 0x0A0B_0C0D, host: "")

    @Test func idsFollowTheTraceFormat() {
        // FNV-1a 32 of "" is the offset basis; of "a", the published 0xe40c292c.
        #expect(fnv1a32("") == 0x811c_9dc5)
        #expect(fnv1a32("a") == 0xe40c_292c)
        #expect(trace.hex == "01020304050607080a0b0c0d811c9dc5")
        #expect(SpanID.synchronousCall(slot: 0, enterPosition: 5).hex == "0000100000000005")
        #expect(SpanID.synchronousCall(slot: 2, enterPosition: 0xABC).value == 3 << 44 | 0xABC)
        #expect(SpanID.asyncCall(token: 1 << 40 | 7).hex == "8000010000000007")
        #expect(SpanID(hex: "8000010000000007") == SpanID.asyncCall(token: 1 << 40 | 7))
        #expect(TraceID(hex: trace.hex) == trace)
        #expect(TraceID(hex: String(repeating: "0", count: 32)) == nil, "all zeros is invalid")
        #expect(SpanID(hex: "xyz") == nil)
    }

    @Test func anyValuesAndSixtyFourBitIntegersFollowTheJSONMapping() throws {
        var json = OTLPJSON()
        json.keyValues([
            Attribute("s", "x"), Attribute("i", Int64.max), Attribute("d", .double(1.5)), Attribute("b", .bool(true)),
            Attribute("a", .array([.int(-1), .string("y")])), Attribute("k", .keyValues([Attribute("n", 2)])),
        ])
        let text = String(decoding: json.bytes, as: UTF8.self)
        #expect(
            text == #"[{"key":"s","value":{"stringValue":"x"}},{"key":"i","value":{"intValue":"9223372036854775807"}},"#
                + #"{"key":"d","value":{"doubleValue":1.5}},{"key":"b","value":{"boolValue":true}},"#
                + #"{"key":"a","value":{"arrayValue":{"values":[{"intValue":"-1"},{"stringValue":"y"}]}}},"#
                + #"{"key":"k","value":{"kvlistValue":{"values":[{"key":"n","value":{"intValue":"2"}}]}}}]"#)
    }

    @Test func spansEncodeIdsAsHexTimesAsStringsAndKindAsANumber() throws {
        var bytes: [UInt8] = []
        Span(
            traceID: trace, spanID: SpanID(0xFF), parentSpanID: SpanID(1), name: "a \"quoted\"\nname",
            startTimeUnixNano: UInt64.max,
            endTimeUnixNano: 2, events: [.exception(type: "SIGSEGV", message: "m", stacktrace: "s", timeUnixNano: 3)],
            status: SpanStatus(code: .error, message: "crash")
        ).appendJSON(to: &bytes)
        let object = try JSONSerialization.jsonObject(with: Data(bytes)) as! [String: Any]
        #expect(object["traceId"] as? String == trace.hex)
        #expect(object["spanId"] as? String == "00000000000000ff")
        #expect(object["parentSpanId"] as? String == "0000000000000001")
        #expect(object["name"] as? String == "a \"quoted\"\nname")
        #expect(object["kind"] as? Int == 1)
        #expect(object["startTimeUnixNano"] as? String == "18446744073709551615")
        #expect((object["status"] as? [String: Any])?["code"] as? Int == 2)
        #expect(((object["events"] as? [[String: Any]])?.first?["name"]) as? String == "exception")
    }

    @Test func logRecordsMapTheLoggerLevelsToSeverityNumbers() {
        let numbers = ["trace", "debug", "info", "notice", "warning", "error", "critical"].map {
            Severity(level: $0)!.rawValue
        }
        #expect(numbers == [1, 5, 9, 10, 13, 17, 21])
        #expect(Severity(level: "loud") == nil)
    }

    @Test(arguments: [(1, 100), (7, 3), (10, 10), (11, 10), (1000, 64)])
    func theWriterSendsARequestPerBatch(items: Int, batch: Int) throws {
        let sink = MemorySink()
        let writer = OTLPWriter<LogRecord>(sink: sink, batchSize: batch)
        // Two processes: the second resource starts mid-batch and shares the request.
        for process in 0 ..< 2 {
            try writer.beginResource(ProcessResource(serviceName: "app", pid: process))
            for index in 0 ..< items {
                try writer.add(LogRecord(timeUnixNano: 1, observedTimeUnixNano: 2, severity: .info, body: "\(index)"))
            }
            try writer.endResource()
        }
        let summary = try writer.finish()
        #expect(summary.requests == (2 * items + batch - 1) / batch)
        #expect(sink.requests.count == summary.requests)
        var seen = 0
        for request in try sink.objects() {
            let resources = request["resourceLogs"] as! [[String: Any]]
            for resource in resources {
                let scopes = resource["scopeLogs"] as! [[String: Any]]
                #expect((scopes[0]["scope"] as? [String: Any])?["name"] as? String == "swift-trail")
                seen += (scopes[0]["logRecords"] as! [Any]).count
            }
        }
        #expect(seen == 2 * items)
    }

    @Test func environmentValuesAreReadAndMalformedOnesNamed() throws {
        let environment = [
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318/", "OTEL_SERVICE_NAME": "svc",
            "OTEL_RESOURCE_ATTRIBUTES": "deployment.environment=prod, team=a%2Cb",
            "OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Bearer%20x", "OTEL_EXPORTER_OTLP_TIMEOUT": "2500",
        ]
        let settings = try ExporterSettings.resolve(
            signal: .traces, endpointOption: nil, serviceOption: nil, toFile: false, environment: environment)
        #expect(settings.endpoint?.description == "http://collector:4318/v1/traces")
        #expect(settings.serviceName == "svc")
        #expect(settings.resourceAttributes == [Attribute("deployment.environment", "prod"), Attribute("team", "a,b")])
        #expect(settings.headers.map { "\($0.0)=\($0.1)" } == ["Authorization=Bearer x"])
        #expect(settings.timeout == 2.5)
        // The specification's defaults: http/protobuf, no compression; the signal's own variable wins.
        #expect(settings.encoding == .protobuf && settings.compression == OTLPCompression.none)
        let wire = try ExporterSettings.resolve(
            signal: .traces, endpointOption: nil, serviceOption: nil, toFile: false,
            environment: [
                "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json",
                "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip",
            ])
        #expect(wire.encoding == .json && wire.compression == .gzip)
        var full = environment
        full["OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"] = "http://[::1]:9999/custom"
        #expect(
            try ExporterSettings.resolve(
                signal: .logs, endpointOption: nil, serviceOption: nil, toFile: false, environment: full
            )
            .endpoint?.description == "http://[::1]:9999/custom")
        #expect(
            try ExporterSettings.resolve(
                signal: .logs, endpointOption: "http://h:1", serviceOption: nil, toFile: false, environment: full
            )
            .endpoint?.description == "http://h:1/v1/logs")
        for (name, value, words) in [
            ("OTEL_RESOURCE_ATTRIBUTES", "novalue", "not key=value"),
            ("OTEL_EXPORTER_OTLP_HEADERS", "a=%zz", "%-escape"),
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "https://x:4318", "https is not supported"),
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://x:99999", "port"),
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "soon", "milliseconds"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc", "http/json"),
            ("OTEL_EXPORTER_OTLP_COMPRESSION", "zstd", "gzip or none"),
        ] {
            let error = #expect(throws: ExportFailure.self) {
                try ExporterSettings.resolve(
                    signal: .traces, endpointOption: nil, serviceOption: nil, toFile: false, environment: [name: value])
            }
            #expect(
                error?.description.contains("\(name)=\(value)") == true && error?.description.contains(words) == true,
                "\(String(describing: error))")
        }
    }

    @Test func retryAfterIsSecondsOrAnHTTPDate() {
        let now = time_t(784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryPolicy.parseRetryAfter("3", now: now) == 3)
        #expect(RetryPolicy.parseRetryAfter("Sun, 06 Nov 1994 08:49:47 GMT", now: now) == 10)
        #expect(RetryPolicy.parseRetryAfter("soon", now: now) == nil)
        let policy = RetryPolicy()
        #expect(policy.delay(retry: 1, retryAfter: nil) == 0.5)
        #expect(policy.delay(retry: 3, retryAfter: nil) == 2)
        #expect(policy.delay(retry: 1, retryAfter: "100000") == 60, "capped")
    }
}
