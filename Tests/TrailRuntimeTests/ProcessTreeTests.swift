import Foundation
import Testing
import TrailTestSupport

/// Context across processes (TRACEPARENT in the environment): a recording parent's children join its trace under
/// the call that started them, and a process started with a foreign TRACEPARENT joins that trace.
@Suite struct ProcessTreeTests {
    /// Every exported span: its trace id, span id, parent id, name and process.
    struct Exported {
        var trace: String, span: String, parent: String?, name: String, pid: String
    }

    static func export(_ directory: String) throws -> (spans: [Exported], summary: String) {
        let output = directory + "/spans.json"
        try run(Paths.trail, ["export", "--otlp", directory, "-o", output], check: true)
        let spans = try otlpSpans(inFile: output).map { span in
            Exported(
                trace: span["traceId"] as? String ?? "", span: span["spanId"] as? String ?? "",
                parent: span["parentSpanId"] as? String,
                name: span["name"] as? String ?? "", pid: span["pid"] as? String ?? "")
        }
        return (spans, try otlpCheck("traces", output))
    }

    @Test func twentyChildrenJoinTheirParentsTraceUnderTheCallThatStartedThem() throws {
        let directory = Paths.temporaryDirectory("process-tree")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.spawnMany, directory, 20),
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": directory + "/%p.trace"], check: true)
        let (spans, summary) = try Self.export(directory)
        #expect(
            summary.hasPrefix("ok=1") && summary.contains(" resources=21 ") && summary.contains(" orphans=0 "),
            "\(summary)")
        #expect(Set(spans.map(\.trace)).count == 1, "one trace across all 21 processes")
        let spawner = try #require(spans.first { $0.name == "Probe.spawner(_:_:)" })
        let children = spans.filter { $0.pid != spawner.pid }
        #expect(Set(children.map(\.pid)).count == 20)
        #expect(children.count == 200)
        #expect(children.allSatisfy { $0.parent == spawner.span }, "every child's root is under the spawning call")
        #expect(Set(spans.map(\.span)).count == spans.count, "span ids are unique across the processes")
    }

    /// `trail replay` over the folder prints each child process inside the call that started it, once, and keeps
    /// them there under --filter (the spawning call's scope).
    @Test(arguments: [[], ["--filter", "Probe.spawner*"]])
    func replayShowsChildProcessesUnderTheCallThatStartedThem(options: [String]) throws {
        let directory = Paths.temporaryDirectory("process-replay")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.spawnMany, directory, 2),
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": directory + "/%p.trace"], check: true)
        let output = try run(Paths.trail, ["replay"] + options + [directory], check: true).stdout
        // `<duration> <pid> [<tid>] | <indent><text>`: the pid and the text after the bar.
        let rows = output.split(separator: "\n").dropFirst().map { line -> (pid: String, text: String) in
            let bar = line.range(of: "] | ")!
            let columns = line[..<bar.lowerBound].split(separator: "[")[0].split(separator: " ")
            return (String(columns.last ?? ""), String(line[bar.upperBound...]))
        }
        #expect(rows.count == 24, "\(output)")
        let parent = try #require(rows.first).pid
        #expect(rows.first?.text == "Probe.spawner(_:_:) { [task 1]")
        #expect(rows.last?.text == "} /* Probe.spawner(_:_:) */" && rows.last?.pid == parent)
        var children: [String] = []
        for (index, row) in rows.dropFirst().dropLast().enumerated() where index % 11 == 0 {
            #expect(row.text == "  [process \(row.pid) trail-probe]", "\(output)")
            children.append(row.pid)
        }
        #expect(Set(children).count == 2 && !children.contains(parent))
        for (index, row) in rows.dropFirst().dropLast().enumerated() where index % 11 != 0 {
            #expect(row.text.hasPrefix("  Probe.nothing();") && row.pid == children[index / 11], "\(output)")
        }
        // Perfetto draws an arrow from the spawning call to each child's first call: a legacy flow, one id each.
        let chromePath = directory + "/chrome.json"
        try run(Paths.trail, ["export", "--chrome", "-o", chromePath, directory], check: true)
        let chrome = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: chromePath))) as? [String: Any]
        )
        let arrows = (chrome["traceEvents"] as? [[String: Any]] ?? []).filter { $0["cat"] as? String == "process" }
        let begun = arrows.filter { $0["ph"] as? String == "s" }
        let ended = arrows.filter { $0["ph"] as? String == "f" }
        #expect(begun.count == 2 && begun.allSatisfy { "\($0["pid"]!)" == parent }, "\(arrows)")
        #expect(Set(ended.map { "\($0["pid"]!)" }) == Set(children) && ended.allSatisfy { $0["bp"] as? String == "e" })
        #expect(Set(begun.compactMap { $0["id"] as? String }) == Set(ended.compactMap { $0["id"] as? String }))
        // One child alone is a trace like any other.
        let child = try #require(
            try FileManager.default.contentsOfDirectory(atPath: directory).first { $0 == children[0] + ".trace" })
        let alone = try run(Paths.trail, ["replay", directory + "/" + child], check: true).stdout
        #expect(alone.split(separator: "\n").count == 11 && !alone.contains("[process"), "\(alone)")
    }

    @Test func aForeignTraceparentIsJoined() throws {
        let directory = Paths.temporaryDirectory("foreign-parent")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // CI systems and shell scripts set it so: upper-case-free hex, sampled.
        let foreign = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.calls, directory, 5),
            environment: [
                "TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": directory + "/%p.trace", "TRACEPARENT": foreign,
            ], check: true)
        let (spans, summary) = try Self.export(directory)
        #expect(
            summary.contains(" spans=5 ") && summary.contains(" orphans=5 "),
            "the remote parent is not in this export: \(summary)")
        #expect(spans.allSatisfy { $0.trace == "4bf92f3577b34da6a3ce929d0e0e4736" && $0.parent == "00f067aa0ba902b7" })
    }

    /// A child started inside Trail.withTraceContext is in the caller's trace too: under the call that started it,
    /// or, started with no traced call open, under the caller's span.
    @Test func childrenStartedInsideATraceContextJoinTheCallersTrace() throws {
        let directory = Paths.temporaryDirectory("context-spawn")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let caller = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.contextSpawn, directory, caller),
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": directory + "/%p.trace"], check: true)
        let (spans, summary) = try Self.export(directory)
        #expect(summary.contains(" resources=3 "), "\(summary)")
        #expect(Set(spans.map(\.trace)) == ["4bf92f3577b34da6a3ce929d0e0e4736"], "\(summary)")
        let spawner = try #require(spans.first { $0.name == "Probe.spawner(_:_:)" })
        #expect(spawner.parent == "00f067aa0ba902b7")
        let children = Dictionary(grouping: spans.filter { $0.pid != spawner.pid }, by: \.pid)
        #expect(children.count == 2 && children.values.allSatisfy { $0.count == 10 })
        let parents = Set(children.values.map { Set($0.map(\.parent)) })
        #expect(parents == [[spawner.span], ["00f067aa0ba902b7"]], "\(parents)")
    }

    @Test(arguments: [
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "junk",
    ])
    func aMalformedTraceparentIsNamedAndLeftAlone(value: String) throws {
        let directory = Paths.temporaryDirectory("bad-parent")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.calls, directory, 3),
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": directory + "/%p.trace", "TRACEPARENT": value],
            check: true)
        #expect(result.stderr.contains("trail: TRACEPARENT=\(value) "), "\(result.stderr)")
        let (spans, _) = try Self.export(directory)
        #expect(
            spans.count == 3 && spans.allSatisfy { $0.parent == nil && $0.trace != "4bf92f3577b34da6a3ce929d0e0e4736" })
    }
}

/// Context across services without swift-distributed-tracing: Trail.withTraceContext and currentTraceparent.
@Suite struct TraceContextTests {
    static let caller = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

    @Test func callsInsideATraceContextBelongToTheCallersSpan() throws {
        let directory = Paths.temporaryDirectory("trace-context")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.context, directory, Self.caller),
            environment: [
                "TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": directory + "/%p.trace", "TRAIL_LOG_FORMAT": "json",
            ],
            check: true)
        let (spans, summary) = try ProcessTreeTests.export(directory)
        // The caller's span is not in this export: its three children name it.
        #expect(summary.contains(" spans=4 ") && summary.contains(" orphans=3 "), "\(summary)")
        #expect(!spans.contains { $0.name == "trace context" }, "the context is not a span of its own")
        func span(_ name: String) throws -> ProcessTreeTests.Exported {
            try #require(spans.first { $0.name == name }, "\(spans)")
        }
        for name in ["Probe.nothing()", "Probe.relay()", "Probe.leaf()"] {
            #expect(try span(name).trace == "0af7651916cd43dd8448eb211c80319c", "\(name)")
            #expect(try span(name).parent == "b7ad6b7169203331", "\(name) is under the caller's span")
        }
        // The header a traced call sends on names that call, in the caller's trace; outside, there is none.
        let relay = try span("Probe.relay()")
        #expect(
            result.stdout.contains("relay 00-0af7651916cd43dd8448eb211c80319c-\(relay.span)-01"), "\(result.stdout)")
        #expect(result.stdout.contains("outside none"))
        // A log line inside the context, outside any call, names the caller's span.
        let log = try String(contentsOfFile: directory + "/probe.log", encoding: .utf8)
        let line = try #require(log.split(separator: "\n").first { $0.contains("\"inside context\"") })
        #expect(
            line.contains(#""trace_id":"0af7651916cd43dd8448eb211c80319c","span_id":"b7ad6b7169203331""#), "\(line)")
    }
}
