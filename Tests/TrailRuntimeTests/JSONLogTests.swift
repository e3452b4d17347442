import Foundation
import Testing
import TrailTestSupport

/// `TRAIL_LOG_FORMAT=json` from real processes: every logger line a JSON object with the documented fields,
/// raw stderr and crash blocks left as text, crash tools still finding their blocks, and `trail export
/// --otlp-logs` turning it all into OTLP that the official definitions accept.
@Suite struct JSONLogTests {
    static let json = ["TRAIL_LOG_FORMAT": "json"]

    func objects(_ log: String) -> (objects: [[String: Any]], raw: [String]) {
        var objects: [[String: Any]] = []
        var raw: [String] = []
        for line in log.split(separator: "\n") {
            if line.hasPrefix("{"),
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            {
                objects.append(object)
            } else {
                raw.append(String(line))
            }
        }
        return (objects, raw)
    }

    @Test func everyLoggerLineIsAJSONObjectWithTheDocumentedFields() throws {
        let directory = Paths.temporaryDirectory("json-lines")
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.jsonLines, directory, 5000), environment: Self.json)
        #expect(result.status == 0, "\(result.stderr)")
        let (objects, raw) = objects(Transcript.read(directory + "/probe.log"))
        #expect(raw == ["raw stderr line"], "raw stderr output stays raw; every other line parses")
        #expect(objects.count == 7 + 1 + 4 * 5000)
        let time = try NSRegularExpression(pattern: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$"#)
        for object in objects {
            let stamp = object["time"] as? String ?? ""
            #expect(time.firstMatch(in: stamp, range: NSRange(stamp.startIndex..., in: stamp)) != nil, "\(stamp)")
            #expect(object["pid"] as? Int != nil && object["thread_id"] as? Int != nil)
            let source = object["source"] as? [String: Any]
            #expect(
                source?["file"] as? String == "trail_probe/LoggerModes.swift" && source?["line"] as? Int != nil
                    && source?["function"] != nil)
        }
        let levels = objects.filter { $0["label"] as? String == "json \"probe\"" }.compactMap { $0["level"] as? String }
        #expect(levels == ["trace", "debug", "info", "notice", "warning", "error", "critical", "info"])
        let escaped = objects.first { ($0["message"] as? String)?.hasPrefix("quote") == true }
        #expect(escaped?["message"] as? String == "quote \" backslash \\ newline \n tab \t bell \u{7} é")
        let metadata = escaped?["metadata"] as? [String: Any]
        #expect(metadata?["request"] as? String == "r-1")
        #expect(((metadata?["nested"] as? [String: Any])?["list"] as? [String]) == ["a", "b"])
        // Lines stay whole under 4 threads: each thread's lines all there, in order.
        for thread in 0 ..< 4 {
            let numbers = objects.filter { $0["label"] as? String == "t\(thread)" }
                .compactMap { ($0["message"] as? String)?.split(separator: " ")[1] }.compactMap { Int($0) }
            #expect(numbers == Array(0 ..< 5000), "thread \(thread)")
        }
    }

    @Test func linesInsideTracedCallsCarryTheirSpanAndTraceIds() throws {
        let directory = Paths.temporaryDirectory("json-spans")
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.jsonSpans, directory),
            environment: Self.json.merging(["TRAIL_TRACE": "record"]) { $1 })
        #expect(result.status == 0, "\(result.stderr)")
        let lines = objects(Transcript.read(directory + "/probe.log")).objects
        func line(_ message: String) -> [String: Any]? { lines.first { $0["message"] as? String == message } }
        #expect(line("outside")?["trace_id"] == nil && line("outside")?["span_id"] == nil)
        let sync = try #require(line("inside sync"))
        let async = try #require(line("inside async"))
        let traceID = try #require(sync["trace_id"] as? String)
        #expect(async["trace_id"] as? String == traceID, "one trace per process")
        // Docs/trace-format.md: wall-clock start (8 bytes), pid (4), FNV-1a of the host name (4), big-endian.
        let pid = try #require(sync["pid"] as? Int)
        #expect(traceID.count == 32 && traceID.dropFirst(16).prefix(8) == String(format: "%08x", pid))
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, 255)
        let hash = String(cString: host).utf8.reduce(UInt32(0x811c_9dc5)) { ($0 ^ UInt32($1)) &* 0x0100_0193 }
        #expect(traceID.suffix(8) == String(format: "%08x", hash))
        // A synchronous call: (slot + 1) << 44 | position, bit 63 clear; an async call: 1 << 63 | token; both
        // XOR the process's salt, mix(wall-clock start) ^ mix(pid << 32 | host hash), all in the trace id.
        func mix(_ value: UInt64) -> UInt64 {
            var z = value
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            return z ^ (z >> 31)
        }
        let salt =
            mix(try #require(UInt64(traceID.prefix(16), radix: 16)))
            ^ mix(try #require(UInt64(traceID.suffix(16), radix: 16)))
        let syncSpan = try #require(UInt64(sync["span_id"] as? String ?? "", radix: 16)) ^ salt
        let asyncSpan = try #require(UInt64(async["span_id"] as? String ?? "", radix: 16)) ^ salt
        #expect(syncSpan >> 63 == 0 && syncSpan >> 44 >= 1, "\(String(syncSpan, radix: 16))")
        #expect(asyncSpan >> 63 == 1, "\(String(asyncSpan, radix: 16))")
        #expect((sync["span_id"] as? String)?.count == 16 && (async["span_id"] as? String)?.count == 16)
        // The OTLP records carry the same ids, so a backend joins them to the spans.
        let output = directory + "/logs.ndjson"
        try run(Paths.trail, ["export", "--otlp-logs", directory + "/probe.log", "-o", output], check: true)
        let exported = Transcript.read(output)
        #expect(exported.contains(#""traceId":"\#(traceID)","spanId":"\#(sync["span_id"] as? String ?? "")""#))
        #expect(try otlpCheck("logs", output, ["--logs", "3"]).hasPrefix("ok=1"))
    }

    @Test(arguments: [CrashMethod.segv, .fatal])
    func crashBlocksStayTextAndAreFoundInAJSONLog(method: CrashMethod) throws {
        let directory = Paths.temporaryDirectory("json-crash-\(method)")
        let environment = Self.json.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
        let crash = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.crash, directory, method, 100), environment: environment)
        #expect(crash.signal != nil)
        let log = Transcript.read(directory + "/probe.log")
        #expect(
            objects(log).objects.filter { ($0["message"] as? String)?.hasPrefix("before crash ") == true }.count == 100)
        #expect(log.contains("\n=== TRAIL CRASH BEGIN v1 ===\n") && log.contains("\n=== TRAIL CRASH END ===\n"))
        let next = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.previous, directory), environment: environment, check: true)
        #expect(next.stdout.contains("block whole"), "\(next.stdout)")
        let report = try run(Paths.trail, ["report", "--crash", directory, "--no-sanitize"], check: true)
        #expect(report.stdout.contains(method == .segv ? "SIGSEGV" : "SIGILL"))
        #expect(report.stdout.contains("before crash 99"), "the log tail holds the JSON lines")
    }

    @Test func aRotatingJSONLogCrashIsFoundByTheNextLaunchAndTheReport() throws {
        let directory = Paths.temporaryDirectory("json-rotating-crash")
        var found = 0
        for round in 0 ..< 10 {
            let environment = Self.json.merging(["TRAIL_LOG_MAX_SIZE": "4K", "SWIFT_BACKTRACE": "enable=no"]) { $1 }
            _ = try run(
                RuntimeProbe.path, RuntimeProbe.arguments(.rotatingCrash, directory, 4, 20 + round % 5 * 10),
                environment: environment)
            let next = try run(
                RuntimeProbe.path, RuntimeProbe.arguments(.previous, directory), environment: environment, check: true)
            let report = try run(Paths.trail, ["report", "--crash", directory, "--no-sanitize"])
            if next.stdout.contains("previous: SIGILL") && next.stdout.contains("block whole")
                && report.stdout.contains("Fatal error: rotating crash")
            {
                found += 1
            }
        }
        #expect(found == 10)
    }

    @Test func aJSONLogWithACrashExportsAsOTLPLogs() throws {
        let directory = Paths.temporaryDirectory("json-otlp")
        let crash = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.crash, directory, CrashMethod.segv, 300),
            environment: Self.json.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 })
        #expect(crash.signal == 11)
        // A second run's text log beside it: a folder holds both formats, oldest first.
        try run(RuntimeProbe.path, RuntimeProbe.arguments(.stderr, directory), check: true)
        let output = directory + "/logs.ndjson"
        let export = try run(
            Paths.trail, ["export", "--otlp-logs", directory, "--batch", "100", "--service", "probe-svc", "-o", output])
        #expect(export.status == 0, "\(export.stderr)")
        let records = 300 + 1 + 4  // JSON lines, the crash block, and the second run's 2 lines and 2 raw stderr lines
        #expect(
            export.stderr.contains(
                "\(records) log records (1 crash or error blocks, 2 raw stderr lines) in 4 requests"),
            "\(export.stderr)")
        let summary = try otlpCheck("logs", output, ["--logs", "\(records)", "--requests", "4"])
        #expect(summary.hasPrefix("ok=1 requests=4 resources="), "\(summary)")
        let text = Transcript.read(output)
        #expect(text.contains(#""severityNumber":21,"severityText":"FATAL""#))
        #expect(text.contains(#"{"key":"exception.type","value":{"stringValue":"SIGSEGV"}}"#))
        #expect(text.contains("Tests/RuntimeProbe/main.swift:"), "the stack is symbolized")
        #expect(text.contains(#"{"key":"service.name","value":{"stringValue":"probe-svc"}}"#))
    }
}
