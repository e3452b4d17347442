import Foundation
import Testing
import TrailTestSupport

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The ItemStore Sample built through the plugin: traced debug, plain, and release builds of one copy.
/// Serialized: some tests edit the copy's sources.
@Suite(.serialized) struct ItemStoreTests {
    static let sample = try! SampleCopy("ItemStore")
    static let traced: String = {
        try! sample.build(scratch: "trail", traced: true)
        return sample.products(scratch: "trail") + "/ItemStore"
    }()
    static let plain: String = {
        try! sample.build(scratch: "plain", traced: false)
        return sample.products(scratch: "plain") + "/ItemStore"
    }()

    /// The hooks instrumented code calls: inlined from Trail, they reach the C runtime directly.
    static func isTraceHook(_ symbol: String) -> Bool {
        symbol.hasPrefix("trail_enter") || symbol.hasPrefix("trail_exit") || symbol == "trail_mode_address"
            || symbol.contains("Trail.enter") || symbol.contains("Trail.exit")
    }

    func demo(_ binary: String, trace: Bool) throws -> ProcessResult {
        let store = Paths.temporaryDirectory("itemstore") + "/items.json"
        return try run(
            binary, ["--store", store, "demo"], environment: trace ? ["TRAIL_TRACE": "1"] : [:], check: true)
    }

    @Test func tracedDemoMatchesTheTranscript() throws {
        let traced = try demo(Self.traced, trace: true)
        let plain = try demo(Self.plain, trace: false)
        #expect(traced.stdout == plain.stdout)
        #expect(plain.stdout.contains("appraised 2 item(s) at $434"))
        let expected = Transcript.read(Paths.fixture("ItemStore/demo-trace.txt"))
        let actual = Transcript.maskTrace(traced.stderr)
        #expect(Transcript.firstDifference(actual, expected) == nil)
    }

    /// Built through the plugin with values (`TRAIL_VALUES=1`, issue 41): the demo prints the same, and its replay
    /// shows each call's arguments, results and the error `remove` throws, as demo-values-replay.txt (hand-checked
    /// against Demo.run: the seeded serials, the edit to 45, the second removal of the sofa).
    @Test func valuesBuildShowsArgumentsResultsAndErrors() throws {
        try Self.sample.build(scratch: "values", traced: true, environment: ["TRAIL_VALUES": "1"])
        let binary = Self.sample.products(scratch: "values") + "/ItemStore"
        let directory = Paths.temporaryDirectory("values")
        let trace = directory + "/demo.trace"
        let recorded = try run(
            binary, ["--store", directory + "/items.json", "demo"],
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": trace], check: true)
        #expect(recorded.stdout == (try demo(Self.plain, trace: false)).stdout)
        let replay = Transcript.maskReplay(try run(Paths.trail, ["replay", trace], check: true).stdout)
        let expected = Transcript.read(Paths.fixture("ItemStore/demo-values-replay.txt"))
        #expect(Transcript.firstDifference(replay, expected) == nil)
        #expect(expected.contains("} throws StoreError: no item with serial number G6G7Y8RG"))
    }

    @Test func recordReplayAndReportMatchTheTranscript() throws {
        let directory = Paths.temporaryDirectory("record")
        let trace = directory + "/demo.trace"
        let recorded = try run(
            Self.traced, ["--store", directory + "/items.json", "demo"],
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": trace], check: true)
        #expect(recorded.stderr.isEmpty, "record mode prints nothing")

        let replay = try run(Paths.trail, ["replay", trace], check: true)
        let expected = Transcript.read(Paths.fixture("ItemStore/demo-replay.txt"))
        #expect(Transcript.firstDifference(Transcript.maskReplay(replay.stdout), expected) == nil)

        // Exact call counts, whatever the timing.
        let report = try run(Paths.trail, ["report", "--sort", "name", trace], check: true)
        var calls: [String: Int] = [:]
        for line in report.stdout.split(separator: "\n").dropFirst(2) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // total, self, average, minimum, maximum: a number and a unit each; calls after the first two.
            guard fields.count >= 12, let count = Int(fields[4]) else { continue }
            calls[String(fields[11])] = count
        }
        #expect(calls["ItemStore.Store.create(name:value:)"] == 3)
        #expect(calls["ItemStore.Store.position(of:)"] == 3)
        #expect(calls["ItemStore.Int.dollars.get"] == 4)
        #expect(calls["ItemStore.Appraisal.marketValue(of:)"] == 2)
        #expect(calls["ItemStore.Demo.run(on:)"] == 1)
        #expect(calls.count == 27)

        // uftrace's habits: its sort keys, comma-separated (calls first, then names breaking ties); -N leaving
        // functions out of the report, and out of replay with what they call; a time needs its unit.
        let byCalls = try run(
            Paths.trail, ["report", "--sort", "call,func", "-N", "ItemStore.Store.*", trace], check: true)
        let names = byCalls.stdout.split(separator: "\n").dropFirst(2).compactMap {
            $0.split(separator: " ").last.map(String.init)
        }
        #expect(names.first == "ItemStore.Int.dollars.get")
        #expect(
            !names.contains { $0.hasPrefix("ItemStore.Store.") }
                && names.count == 27 - calls.keys.filter { $0.hasPrefix("ItemStore.Store.") }.count)
        let orderedCalls = names.compactMap { calls[$0] }
        #expect(orderedCalls == orderedCalls.sorted(by: >))
        let badKey = try run(Paths.trail, ["report", "--sort", "total,bogus", trace])
        #expect(badKey.status == 2 && badKey.stderr.contains("--sort: 'bogus' is not a key"))
        let excluded = try run(
            Paths.trail, ["replay", "-N", "ItemStore.Store.create(name:value:)", trace], check: true)
        func count(_ text: String, _ name: String) -> Int { text.components(separatedBy: name).count - 1 }
        #expect(!excluded.stdout.contains("ItemStore.Store.create(name:value:)"))
        // The three creates' validate calls go with them; update's stays.
        #expect(
            count(excluded.stdout, "ItemStore.Store.validate(") == count(replay.stdout, "ItemStore.Store.validate(") - 3
        )
        #expect(excluded.stdout.contains("ItemStore.Demo.run(on:)"))
        let bare = try run(Paths.trail, ["replay", "-t", "5", trace])
        #expect(bare.status == 2 && bare.stderr.contains("--min-duration: '5' has no unit; write 5ns, 5us, 5ms or 5s"))
        #expect(try run(Paths.trail, ["replay", "-t", "0", trace]).status == 0)

        // Colours as uftrace's: closing comments dimmed; never, or by default into a pipe, none.
        let colored = try run(Paths.trail, ["replay", "--color=always", trace], check: true)
        #expect(colored.stdout.contains("\u{1B}[2m} /* ItemStore.Demo.run(on:) */\u{1B}[0m"))
        #expect(!replay.stdout.contains("\u{1B}["))
        #expect(try run(Paths.trail, ["replay", "--color=sometimes", trace]).status == 2)
        // On a terminal the output goes through PAGER, unless --no-pager (script(1) gives the terminal).
        let paged = try run(
            "script", ["-qec", "PAGER='sed s/^/paged:/' \(Paths.trail) report \(trace)", "/dev/null"], check: true)
        #expect(paged.stdout.contains("paged:  Total time"))
        let unpaged = try run(
            "script", ["-qec", "PAGER='sed s/^/paged:/' \(Paths.trail) report --no-pager \(trace)", "/dev/null"],
            check: true)
        #expect(unpaged.stdout.contains("  Total time") && !unpaged.stdout.contains("paged:"))

        let chrome = try run(Paths.trail, ["export", "--chrome", trace], check: true)
        let json = try JSONSerialization.jsonObject(with: Data(chrome.stdout.utf8)) as? [String: Any]
        // -o writes the same JSON to a file, nothing to stdout.
        let chromeFile = directory + "/chrome.json"
        #expect(try run(Paths.trail, ["export", "--chrome", "-o", chromeFile, trace], check: true).stdout.isEmpty)
        #expect(Transcript.read(chromeFile) == chrome.stdout)
        try FileManager.default.removeItem(atPath: chromeFile)
        let events = json?["traceEvents"] as? [[String: Any]] ?? []
        #expect(events.filter { $0["ph"] as? String == "X" }.count == 40)
        #expect(events.filter { $0["ph"] as? String == "b" }.count == 5)
        #expect(events.filter { $0["ph"] as? String == "e" }.count == 5)

        let svg = try run(Paths.trail, ["flamegraph", trace], check: true)
        let parser = XMLParser(data: Data(svg.stdout.utf8))
        let frames = FlameFrames()
        parser.delegate = frames
        #expect(parser.parse(), "the flame graph is well-formed XML")
        // It is drawn without the script too: each frame sits in its depth's row, inside the picture.
        #expect(frames.rects.count == frames.depths.count && frames.rects.count > 20)
        #expect(frames.rects.first?.width ?? 0 > 1199)
        for (rect, depth) in zip(frames.rects, frames.depths) {
            #expect(rect.y == 60 + 17 * Double(depth) && rect.x >= 0 && rect.x + rect.width <= 1200)
        }
        #expect(svg.stdout.contains("ItemStore.Store.create(name:value:)"))
    }

    /// Task trees: the survey's task-group children, its `async let` and its `Task {}` hang under
    /// `Survey.run(_:)`, whichever threads ran them; the detached task starts a tree of its own. Folded stacks
    /// with call counts pin the nesting whatever the timing.
    @Test func surveyTaskTreeMatchesTheTranscript() throws {
        let directory = Paths.temporaryDirectory("survey")
        let store = directory + "/items.json"
        for (name, value) in [("lamp", "100"), ("desk", "250"), ("chair", "80")] {
            _ = try run(Self.plain, ["--store", store, "add", name, value], check: true)
        }
        let trace = directory + "/survey.trace"
        let surveyed = try run(
            Self.traced, ["--store", store, "survey"],
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": trace], check: true)
        #expect(surveyed.stdout == "surveyed 3 item(s) at $473; audit clean; 3 items\n")
        let folded = try run(Paths.trail, ["flamegraph", "--folded", "--calls", trace], check: true)
        let expected = Transcript.read(Paths.fixture("ItemStore/survey-folded.txt"))
        #expect(Transcript.firstDifference(folded.stdout, expected) == nil)

        // In the Chrome trace each child task's first slice takes a flow arrow from Survey.run(_:)'s async slice
        // (Perfetto binds `bind_id`/`flow_in`/`flow_out` on "X", "b" and "n" events alike).
        let exported = try run(Paths.trail, ["export", "--chrome", trace], check: true)
        let events =
            (try JSONSerialization.jsonObject(with: Data(exported.stdout.utf8)) as? [String: Any])?["traceEvents"]
            as? [[String: Any]] ?? []
        var creators: [String: String] = [:]
        for event in events where event["flow_out"] as? Bool == true {
            creators[event["bind_id"] as? String ?? ""] = event["name"] as? String
        }
        let arrows = events.filter { $0["flow_in"] as? Bool == true }.map {
            creators[$0["bind_id"] as? String ?? ""] ?? "nothing"
        }
        #expect(arrows == Array(repeating: "ItemStore.Survey.run(_:)", count: 5), "\(arrows)")

        // The same tree as OTLP spans, checked against the official definitions: every call a span, every
        // parent there, children inside their parents (the survey awaits all its tasks), child tasks under
        // Survey.run(_:).
        let requests = directory + "/spans.json"
        _ = try run(Paths.trail, ["export", "--otlp", "--batch", "4", "-o", requests, trace], check: true)
        #expect(
            try otlpCheck("traces", requests, ["--spans", "14", "--requests", "4"])
                == "ok=1 requests=4 resources=4 spans=14 logs=0 orphans=0 outliving=0")
        let spans = try Transcript.read(requests).split(separator: "\n").flatMap { line -> [[String: Any]] in
            let request = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            let resources = request?["resourceSpans"] as? [[String: Any]] ?? []
            return resources.flatMap {
                ($0["scopeSpans"] as? [[String: Any]] ?? []).flatMap { $0["spans"] as? [[String: Any]] ?? [] }
            }
        }
        let byId = Dictionary(
            uniqueKeysWithValues: spans.map { ($0["spanId"] as? String ?? "", $0["name"] as? String ?? "") })
        let parents = spans.filter { ($0["name"] as? String)?.hasPrefix("ItemStore.Appraisal.marketValue") == true }
            .map { byId[$0["parentSpanId"] as? String ?? ""] }
        #expect(parents == Array(repeating: "ItemStore.Survey.run(_:)", count: 3))
        #expect(spans.first { $0["name"] as? String == "ItemStore.Survey.housekeeping()" }?["parentSpanId"] == nil)

        // A folder of traces is read as traces (not as a crash-log folder), and Chrome's export takes the same
        // volume control as OTLP's.
        let report = try run(Paths.trail, ["report", "--sort", "calls", directory], check: true)
        #expect(report.stdout.contains("ItemStore.Appraisal.marketValue(of:)"), "\(report.stdout)\(report.stderr)")
        let chrome = try run(Paths.trail, ["export", "--chrome", "--min-duration", "60s", trace], check: true)
        let chromeEvents =
            (try JSONSerialization.jsonObject(with: Data(chrome.stdout.utf8)) as? [String: Any])?["traceEvents"]
            as? [[String: Any]]
        #expect(
            chromeEvents?.filter { $0["ph"] as? String == "M" }.count == chromeEvents?.count,
            "only metadata events are left")

        // Volume control: calls shorter than a minute are left out, and with --summary counted into the root.
        let summary = try run(
            Paths.trail, ["export", "--otlp", "--min-duration", "60s", "--summary", "-o", requests, trace], check: true)
        #expect(summary.stderr.contains("0 spans from 1 processes (14 shorter calls folded into their parents)"))
    }

    @Test func tracingIsOffUnlessAskedFor() throws {
        #expect(try demo(Self.traced, trace: false).stderr.isEmpty)
    }

    @Test func plainBuildCallsNoTraceHook() throws {
        _ = Self.plain
        let symbols = try undefinedSymbols(inObjectsOf: Self.sample.products(scratch: "plain") + "/ItemStore.build")
        #expect(!symbols.isEmpty)
        #expect(!symbols.contains(where: Self.isTraceHook))
        // The same check finds the hooks in the traced build, so it can fail.
        let tracedSymbols = try undefinedSymbols(
            inObjectsOf: Self.sample.products(scratch: "trail") + "/ItemStore.build")
        #expect(tracedSymbols.contains("trail_enter_sync"))
        #expect(tracedSymbols.contains("trail_enter_async"))
    }

    @Test func releaseBuildWithTrailCarriesNoTraceCallsUnlessAsked() throws {
        try Self.sample.build(scratch: "release", traced: true, configuration: "release")
        let release = Self.sample.products(scratch: "release", configuration: "release")
        let symbols = try undefinedSymbols(inObjectsOf: release + "/ItemStore.build")
        #expect(!symbols.contains(where: Self.isTraceHook))
        #expect(try demo(release + "/ItemStore", trace: true).stderr.isEmpty)

        // TRAIL_RELEASE=1 asks for traced release builds.
        try Self.sample.build(
            scratch: "release-traced", traced: true, configuration: "release",
            environment: ["TRAIL_RELEASE": "1"])
        let tracedRelease = Self.sample.products(scratch: "release-traced", configuration: "release")
        #expect(
            try demo(tracedRelease + "/ItemStore", trace: true).stderr.contains(
                "-> ItemStore.Store.create(name:value:)"))
    }

    @Test func touchingOneFileReinstrumentsOnlyThatFile() throws {
        _ = Self.traced
        try Self.sample.build(scratch: "trail", traced: true)  // settle: the first rebuild re-plans
        let file = Self.sample.directory + "/Sources/ItemStore/Store.swift"
        try FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: file)
        let rebuild = try Self.sample.build(scratch: "trail", traced: true)
        let instrumented = rebuild.stdout.split(separator: "\n").filter { $0.contains("Trail instrumenting") }
        #expect(instrumented.count == 1)
        #expect(instrumented.first?.hasSuffix("Trail instrumenting Store.swift") == true)
    }

    /// SwiftPM relinks the plugin's tool, and so reruns every instrumenting command, whenever the environment
    /// changes (`TRAIL_TRACE=record swift test` after `swift build`); the copies come out the same and are not
    /// rewritten, so nothing is compiled again.
    @Test func anEnvironmentChangeRecompilesNothing() throws {
        _ = Self.traced
        try Self.sample.build(scratch: "trail", traced: true)
        let rebuild = try Self.sample.build(
            scratch: "trail", traced: true, environment: ["TRAIL_UNRELATED": UUID().uuidString])
        let compiled = rebuild.stdout.split(separator: "\n").filter { $0.contains("Compiling ItemStore") }
        #expect(compiled.isEmpty, "\(compiled)")
    }

    @Test func neverFunctionsDeclaredInAnotherFileAreKnown() throws {
        _ = Self.traced
        // Each file has a command of its own; `trail scan` tells it that `unfinished` returns Never, so the lone
        // call is not turned into `return unfinished(...)`, which would not compile in an `Int` getter.
        let directory = Self.sample.directory + "/Sources/ItemStore/"
        let declaring = directory + "ZUnfinished.swift"
        let calling = directory + "AForecast.swift"
        defer {
            try? FileManager.default.removeItem(atPath: declaring)
            try? FileManager.default.removeItem(atPath: calling)
        }
        try "func unfinished(_ what: String) -> Never { fatalError(what) }\n"
            .write(toFile: declaring, atomically: true, encoding: .utf8)
        try "extension Store {\n    var forecast: Int { unfinished(\"forecast\") }\n}\n"
            .write(toFile: calling, atomically: true, encoding: .utf8)
        let built = try Self.sample.build(scratch: "trail", traced: true, check: false)
        #expect(built.status == 0, "\((built.stdout + built.stderr).suffix(2000))")
        #expect(built.stdout.contains("Trail scanning ItemStore"))
        // The plugin's outputs are all Swift: any other file would become a resource and give the target a bundle.
        let products = try FileManager.default.contentsOfDirectory(atPath: Self.sample.products(scratch: "trail"))
        #expect(!products.contains { $0.hasSuffix(".resources") }, "\(products)")
    }

    @Test func compileErrorsNameTheOriginalFileAndLine() throws {
        _ = Self.traced
        let file = Self.sample.directory + "/Sources/ItemStore/Store.swift"
        let original = try String(contentsOfFile: file, encoding: .utf8)
        defer { try? original.write(toFile: file, atomically: true, encoding: .utf8) }
        let line =
            original.split(separator: "\n", omittingEmptySubsequences: false)
            .firstIndex { $0.contains("var totalValue: Int") }! + 1
        try original.replacingOccurrences(
            of: "var totalValue: Int { items.reduce(0) { $0 + $1.valueInDollars } }",
            with: "var totalValue: Int { items.reduce(0) { $0 + $1.valueInDollars } + \"x\" }"
        )
        .write(toFile: file, atomically: true, encoding: .utf8)
        let failed = try Self.sample.build(scratch: "trail", traced: true, check: false)
        #expect(failed.status != 0)
        let output = failed.stdout + failed.stderr
        #expect(output.contains("\(file):\(line):"), "\(output.suffix(2000))")
        #expect(!output.contains(".trail.swift:\(line):"))
    }

    @Test func commandPluginInstrumentsAndStripsInPlace() throws {
        let sources = Self.sample.directory + "/Sources/ItemStore"
        let before = try FileManager.default.contentsOfDirectory(atPath: sources).sorted()
            .map { try String(contentsOfFile: sources + "/" + $0, encoding: .utf8) }
        let package = [
            "package", "--package-path", Self.sample.directory, "--scratch-path",
            Self.sample.directory + "/.build/plain",
        ]

        let refused = try run("swift", package + ["trail", "instrument"])
        #expect(refused.status != 0)
        #expect((refused.stdout + refused.stderr).contains("allow-writing-to-package-directory"))

        try run("swift", package + ["--allow-writing-to-package-directory", "trail", "instrument"], check: true)
        let store = try String(contentsOfFile: sources + "/Store.swift", encoding: .utf8)
        #expect(store.contains(#"Trail.enter("ItemStore.Store.create(name:value:) @ ItemStore/Store.swift:34")"#))
        try run("swift", package + ["--allow-writing-to-package-directory", "trail", "strip"], check: true)
        let after = try FileManager.default.contentsOfDirectory(atPath: sources).sorted()
            .map { try String(contentsOfFile: sources + "/" + $0, encoding: .utf8) }
        #expect(after == before)
    }
}

/// Collects the flame graph's frame rectangles and depths.
final class FlameFrames: NSObject, XMLParserDelegate {
    var rects: [(x: Double, y: Double, width: Double)] = []
    var depths: [Int] = []
    private var inFrame = false

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if name == "g", let depth = attributes["data-d"].flatMap(Int.init) {
            depths.append(depth)
            inFrame = true
        } else if name == "rect", inFrame {
            rects.append(
                (
                    Double(attributes["x"] ?? "") ?? -1, Double(attributes["y"] ?? "") ?? -1,
                    Double(attributes["width"] ?? "") ?? -1
                ))
            inFrame = false
        }
    }
}
