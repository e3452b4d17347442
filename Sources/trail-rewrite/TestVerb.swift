import Foundation
import TrailCommandLine
import TrailDriver

let testVerb = Verb(
    name: "test",
    summary: ForwardedVerbs.test.summary,
    usage:
        "[--package DIR] [--values] [--filter X]... [--skip X]... [--parallel] [-c debug|release] [--diff [--threshold T]] "
        + "[-- swift test arguments]",
    details: """
        Traces a package's test suite with nothing to edit. The package is copied to .build/trail-shadow/package,
        the copy's manifest gets the swift-trail dependency and the Trail product on every Swift target, tests
        included, and the copy's sources are instrumented in place (a rerun copies and instruments only what
        changed). 'swift test' then builds the copy into .build/trail-shadow/build and runs it with
        TRAIL_TRACE=record: one trace per process in a fresh folder under .build/trail-shadow/traces, which
        traces/latest links to (the five newest runs are kept). Your own TRAIL_* settings apply (TRAIL_TRACE and
        TRAIL_TRACE_FILE are trail test's). Then: the XCTest and Swift Testing tests that passed and failed, where
        the traces are, the top of 'trail report', and for each failing test the calls it made ('trail replay
        --filter'). Paths that name the copy are printed as your package's. The exit status is the tests'; Ctrl-C
        stops the build or the tests at once, and the next run repairs the copy. With --diff, the summary ends with
        'trail report --diff' of the previous run's traces against this run's: the largest regressions first.
        """,
    options: [
        .value("--package", placeholder: "DIR", help: "The package folder (default: the current folder)."),
        .flag("--values", help: "Also record each call's arguments and results (as 'trail instrument --values')."),
        .value(
            "--filter", placeholder: "X", help: "Run only the tests matching X, as 'swift test --filter' (repeatable).",
            repeatable: true),
        .value(
            "--skip", placeholder: "X", help: "Leave out the tests matching X, as 'swift test --skip' (repeatable).",
            repeatable: true),
        .flag(
            "--parallel",
            help:
                "Run XCTest tests in parallel worker processes, as 'swift test --parallel'; each writes its own trace."),
        .value(
            "-c", "--configuration", placeholder: "NAME",
            help: "Build the copy with configuration NAME (debug or release; default debug)."),
        .flag("--diff", help: "After the summary, compare this run's traces with the previous run's, per function."),
        .value(
            "--threshold", placeholder: "TIME|N%",
            help: "With --diff: only functions whose total time changed by TIME (10us) or N% (10%) or more."),
    ],
    needs: ["threshold": ["diff"]],
    run: { arguments in
        let configuration = try buildConfiguration(arguments.value("configuration"))
        let threshold = arguments.value("threshold")
        if let threshold, !TestSummary.isThreshold(threshold) {
            throw UsageError(
                description: "--threshold: a time with its unit (500ns, 10us, 1.5ms, 2s) or a percentage (10%), "
                    + "not '\(threshold)'")
        }
        let shadow = try ShadowRun.prepare(
            package: arguments.value("package") ?? ".", verb: "test", values: arguments.has("values"))
        // Read before the new folder takes the link.
        let previous = ShadowRun.latestRun(shadow)
        let folder = try ShadowRun.traceFolder(shadow)
        // One `swift test` builds and runs: a `swift build` before it costs a second planning of the build, and
        // each makes the other plan again. The environment names the `latest` link, so it is the same every run.
        var command =
            [
                "swift", "test", "--package-path", shadow.copy, "--scratch-path", shadow.scratch,
                "--configuration", configuration, "--xunit-output", folder + "/results.xml",
            ] + shadow.resolutionArguments
        for filter in arguments.all("filter") { command += ["--filter", filter] }
        for skip in arguments.all("skip") { command += ["--skip", skip] }
        if arguments.has("parallel") { command.append("--parallel") }
        command += arguments.positionals
        let console = XCTestConsole()
        let status = try ShadowRun.run(command, shadow, environment: ShadowRun.recording(shadow), onLine: console.read)
        let cases = TestSummary.results(in: folder, console: console.cases)
        if status != 0, cases.isEmpty, ShadowRun.traces(in: folder).count == 0 {
            throw VerbFailure(
                "the traced build or test run of \(shadow.original) failed (status \(status)); see above",
                status: status)
        }
        TestSummary.print(cases, folder: folder, status: status, shadow: shadow)
        if arguments.has("diff") {
            TestSummary.printDiff(previous: previous, folder: folder, threshold: threshold, shadow: shadow)
        }
        return status
    })

/// `debug` or `release`, as SwiftPM's `--configuration` takes it.
func buildConfiguration(_ given: String?) throws -> String {
    guard let given else { return "debug" }
    guard given == "debug" || given == "release" else {
        throw UsageError(description: "--configuration takes debug or release, not '\(given)'")
    }
    return given
}

/// The summary after a traced test run, from the xUnit files `swift test` wrote and the traces.
enum TestSummary {
    struct Case {
        var suite: String
        var name: String
        var failed: Bool
    }

    static func print(_ cases: [Case], folder: String, status: Int32, shadow: ShadowPackage) {
        let mapping = (shadow.copy, shadow.original)
        let failed = cases.filter(\.failed)
        let traces = ShadowRun.traces(in: folder)
        printOut(
            "\n== trail test: \(cases.count - failed.count) passed, \(failed.count) failed"
                + (cases.isEmpty ? " (no test results: status \(status))" : "") + "\n")
        printOut(
            "== \(traces.count) trace\(traces.count == 1 ? "" : "s"), \(ShadowRun.size(traces.bytes)), in "
                + "\(ShadowRun.relative(folder))\n")
        guard traces.count > 0 else {
            printOut("   No trace was written: no traced test process ran.\n")
            return
        }
        printOut("== the busiest functions (trail report \(ShadowRun.relative(folder)))\n")
        ShadowRun.show(
            ["report", folder], lines: 16, more: "trail report \(ShadowRun.relative(folder))", mapping: mapping)
        for test in failed.prefix(3) {
            let pattern =
                "*" + (test.suite.split(separator: ".").last.map { $0 + "." } ?? "") + test.name.prefix { $0 != "(" }
                + "(*"
            printOut("\n== \(test.suite).\(test.name) failed; its calls (trail replay --filter '\(pattern)')\n")
            ShadowRun.show(
                ["replay", "--filter", pattern, folder], lines: 40,
                more: "trail replay --filter '\(pattern)' \(ShadowRun.relative(folder))", mapping: mapping)
        }
    }

    /// `trail report --diff` of the previous run's traces against this run's, its first lines.
    static func printDiff(previous: String?, folder: String, threshold: String?, shadow: ShadowPackage) {
        guard let previous, ShadowRun.traces(in: previous).count > 0 else {
            printOut("\n== --diff: no previous run with traces to compare with; the next run compares with this one\n")
            return
        }
        let arguments = ["report", "--diff", previous] + (threshold.map { ["--threshold", $0] } ?? []) + [folder]
        let command = "trail " + arguments.map { ShadowRun.relative($0) }.joined(separator: " ")
        printOut("\n== changes since the previous run, largest regressions first (\(command))\n")
        ShadowRun.show(arguments, lines: 20, more: command, mapping: (shadow.copy, shadow.original))
    }

    /// A time with its unit (`50us`) or a percentage (`10%`), as `trail report --threshold` takes it; checked
    /// before the tests run rather than after.
    static func isThreshold(_ text: String) -> Bool {
        if text.hasSuffix("%") { return Double(text.dropLast()).map { $0 >= 0 } ?? false }
        let number = text.prefix { $0.isNumber || $0 == "." }
        return Double(number) != nil && ["ns", "us", "µs", "ms", "s"].contains(String(text.dropFirst(number.count)))
    }

    /// Every test case: Swift Testing's from its xUnit file, XCTest's from its xUnit file where SwiftPM wrote one
    /// (a parallel run), else from what XCTest printed (`console`).
    static func results(in folder: String, console: [Case]) -> [Case] {
        var cases: [Case] = FileManager.default.fileExists(atPath: folder + "/results.xml") ? [] : console
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        where name.hasSuffix(".xml") {
            guard let text = try? String(contentsOfFile: folder + "/" + name, encoding: .utf8) else { continue }
            var rest = text[...]
            while let start = rest.range(of: "<testcase ") {
                rest = rest[start.upperBound...]
                let end = rest.range(of: "</testcase>")?.lowerBound ?? rest.endIndex
                let selfClosed =
                    rest.range(of: "/>").map { $0.lowerBound < (rest.range(of: ">")?.lowerBound ?? rest.endIndex) }
                    ?? false
                let body = selfClosed ? rest[..<rest.startIndex] : rest[..<end]
                cases.append(
                    Case(
                        suite: attribute("classname", in: rest), name: attribute("name", in: rest),
                        failed: body.contains("<failure")))
            }
        }
        return cases
    }

    private static func attribute(_ name: String, in text: Substring) -> String {
        let tagEnd = text.range(of: ">")?.lowerBound ?? text.endIndex
        let tag = text[..<tagEnd]
        guard
            let start = tag.range(of: " \(name)=\"")
                ?? (tag.hasPrefix("\(name)=\"") ? tag.range(of: "\(name)=\"") : nil),
            let end = tag[start.upperBound...].firstIndex(of: "\"")
        else { return "" }
        return String(tag[start.upperBound ..< end])
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }
}
