import Foundation
import Testing
import TrailTestSupport

/// Async functions in a build with values (issue 41): Fixtures/AsyncValues/main.swift, instrumented with `--values`
/// and compiled under Swift 6 with warnings as errors, records each async call's arguments, result and error, and
/// every viewer shows them as it shows a synchronous call's (expected-replay.txt, checked by hand against the
/// source).
@Suite struct AsyncValueTests {
    static let binary: String = {
        let source = Transcript.read(Paths.fixture("AsyncValues/main.swift"))
        return try! ValuesProgram.build(source, in: Paths.temporaryDirectory("async-values"))
    }()

    static let output = "contents of /etc/app.conf after 4\ncaught no /missing\n2 1\ntrue\n3.0 2\nzero high low one+\n"

    static func record(_ environment: [String: String] = [:]) throws -> String {
        let trace = Paths.temporaryDirectory("async-values-trace") + "/app.trace"
        let recording = ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": trace].merging(environment) { $1 }
        #expect(try run(binary, [], environment: recording, check: true).stdout == output)
        return trace
    }

    @Test func replayShowsArgumentsResultsAndErrors() throws {
        #expect(try run(Self.binary, [], check: true).stdout == Self.output)
        let replay = try run(Paths.trail, ["replay", try Self.record()], check: true)
        #expect(!replay.stderr.contains("skipped"), "\(replay.stderr)")
        let expected = Transcript.read(Paths.fixture("AsyncValues/expected-replay.txt"))
        #expect(Transcript.firstDifference(Transcript.maskReplay(replay.stdout), expected) == nil)
        #expect(expected.contains("} throws Missing: no /missing /* App.load(path:retries:) */"))
        #expect(expected.contains(#"App.login(user: "ann", password: <redacted>) = true; [async]"#))
    }

    /// Chrome's args and OTLP's attributes, and `report --by-value`, from the same records.
    @Test func chromeOTLPAndReportByValue() throws {
        let trace = try Self.record()
        // `-o -` is standard output, as other tools take it, not a file named `-`.
        let here = Paths.temporaryDirectory("async-values-export")
        let chrome = try run(Paths.trail, ["export", "--chrome", "-o", "-", trace], directory: here, check: true).stdout
        #expect(chrome.contains(#""arguments":"path: \"/missing\", retries: -1""#), "\(chrome.prefix(2000))")
        #expect(chrome.contains(#""thrown":"Missing: no /missing""#))
        let otlp = try run(Paths.trail, ["export", "--otlp", "-o", "-", trace], directory: here, check: true).stdout
        #expect(!FileManager.default.fileExists(atPath: here + "/-"))
        #expect(otlp.contains(#""key":"code.function.argument.path","value":{"stringValue":"\"/etc/app.conf\""}"#))
        #expect(otlp.contains(#""key":"code.function.return_value","value":{"stringValue":"3.0"}"#))
        let report = try run(Paths.trail, ["report", "--by-value", "App.count", trace], check: true).stdout
        #expect(report.contains("App.count(<[Int]>, limit: 2)"), "\(report)")
        #expect(report.contains("App.count(<[Int]>, limit: nil)"))
    }

    /// `trail tui` shows each call as replay does, with what it was given and gave back, and searches that text;
    /// the graph still goes by the function's name.
    @Test func tuiShowsAndSearchesTheValues() throws {
        let screen = try TUITests.Screen(try Self.record())
        defer { screen.close() }
        try screen.keys("e")
        var shown = try screen.wait(
            for: #"App.load(path: "/missing", retries: -1) throws Missing: no /missing [async]"#)
        #expect(shown.contains(#"App.login(user: "ann", password: <redacted>) = true [async]"#), "\(shown)")
        try screen.keys("/", "grade(7)", "Enter")
        shown = try screen.wait(for: "/grade(7)")
        try screen.keys("G")
        shown = try screen.wait(for: "Graph of App.grade(_:)")
        try screen.keys("q")
        try screen.wait(for: "EXITED 0")
    }

    /// The settings apply as to synchronous calls: a described type, and a filter that leaves `load` without values
    /// (so the second has no child: its error's description is not made).
    @Test func describeAndFilterSettings() throws {
        let described = try run(
            Paths.trail, ["replay", try Self.record(["TRAIL_VALUES_DESCRIBE": "[Int]"])], check: true
        ).stdout
        #expect(described.contains("App.count([1, 2, 3], limit: 2) = 2; [async]"), "\(described)")
        let filtered = try run(
            Paths.trail, ["replay", try Self.record(["TRAIL_VALUES_FILTER": "App.count*"])], check: true
        ).stdout
        #expect(filtered.contains("App.load(path:retries:) { [async]"), "\(filtered)")
        #expect(filtered.contains("App.load(path:retries:); [async]"))
        #expect(filtered.contains("App.count(<[Int]>, limit: nil) = 1; [async]"))
    }

    /// Tracing off runs as the untraced program does; log mode too, its async lines carrying the values as
    /// synchronous ones do (the entry line waits for the arguments).
    @Test func offAndLogModeRunTheSame() throws {
        #expect(try run(Self.binary, [], environment: ["TRAIL_TRACE": "0"], check: true).stdout == Self.output)
        let logged = try run(Self.binary, [], environment: ["TRAIL_TRACE": "1"], check: true)
        #expect(logged.stdout == Self.output)
        let lines = Transcript.maskTrace(logged.stderr)
        #expect(lines.contains(#"  -> App.load(path: "/missing", retries: -1)  (App/main.swift:11) async"#), "\(lines)")
        #expect(lines.contains("  <- App.load(path:retries:) throws Missing: no /missing"))
        #expect(lines.contains(#"  -> App.login(user: "ann", password: <redacted>)  (App/main.swift:22) async"#))
        #expect(lines.contains("      <- App.nested(_:) = 0"))
    }
}
