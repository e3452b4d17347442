import Foundation
import Testing
import TrailTestSupport

/// `trail test` on a package as the ecosystem writes them (`TrailTestPackage`): XCTest and Swift Testing both
/// counted, each failing test's calls, the user's paths in every message, fixtures, resources and environment as
/// under `swift test`, `--filter`/`--skip`/`--parallel`/`-c release`, the user's TRAIL_* settings, and Ctrl-C at
/// each step. One package, built once in debug and once in release, serves every step.
@Suite struct TrailTestVerbTests {
    @Test func xctestAndSwiftTestingTracedAsUnderSwiftTest() throws {
        let base = try TrailTestPackage.make()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let package = base + "/mixed"
        let copy = package + "/.build/trail-shadow/package"

        // Both frameworks counted, each failing test with its calls; the user's TRAIL_* setting (a function left
        // out of the trace) applies; the environment reaches the tests; fixtures by #filePath, the resource and
        // the versioned manifest (targets made by code) work.
        let failing = try run(
            Paths.trail, ["test", "--package", package],
            environment: ["MIXED_FAIL": "1", "TRAIL_TRACE_EXCLUDE": "Calc.add*"])
        let all = failing.stdout + failing.stderr
        #expect(failing.status == 1)
        #expect(failing.stdout.contains("== trail test: 6 passed, 2 failed"), "\(all.suffix(4000))")
        #expect(failing.stdout.contains("Test Case 'CalcXCTests.testFixture' passed"))
        #expect(failing.stdout.contains("Test resource() passed"))
        #expect(failing.stdout.contains("Test versionedManifest() passed"))
        let xctest = try #require(failing.stdout.range(of: "== CalcXCTests.testDouble failed; its calls"))
        #expect(failing.stdout[xctest.upperBound...].contains("| CalcTests.CalcXCTests.testDouble() {"))
        #expect(failing.stdout[xctest.upperBound...].contains("|   Calc.double(_:);"))
        let swiftTesting = try #require(failing.stdout.range(of: "== CalcTests.doubling() failed; its calls"))
        #expect(failing.stdout[swiftTesting.upperBound...].contains("| CalcTests.doubling() {"))
        #expect(!failing.stdout.contains("Calc.add(_:_:)"), "TRAIL_TRACE_EXCLUDE was not applied")
        // Paths name the user's files: XCTest's failure and the compiler's warning.
        #expect(all.contains("\(package)/Tests/CalcTests/CalcXCTests.swift:9: error: CalcXCTests.testDouble"))
        #expect(all.contains("\(package)/Sources/Calc/Calc.swift:5:9: warning: initialization of immutable value"))
        // Only Trail's line saying where the copy is names it; no file in it is named.
        let naming = all.components(separatedBy: "\n").filter { $0.contains(copy + "/") }
        #expect(naming.isEmpty, "\(naming.prefix(5))")
        #expect(FileManager.default.fileExists(atPath: copy + "/Package@swift-6.0.swift"))

        // --filter and --skip as swift test has them: XCTest alone, then Swift Testing alone.
        let xctestOnly = try run(
            Paths.trail, ["test", "--package", package, "--filter", "CalcXCTests", "--skip", "testAdd"])
        #expect(xctestOnly.status == 0, "\(xctestOnly.stderr.suffix(2000))")
        #expect(xctestOnly.stdout.contains("== trail test: 2 passed, 0 failed"), "\(xctestOnly.stdout.suffix(2000))")
        #expect(!xctestOnly.stdout.contains("testAdd"))
        let swiftTestingOnly = try run(Paths.trail, ["test", "--package", package, "--filter", "sum"])
        #expect(swiftTestingOnly.stdout.contains("== trail test: 1 passed, 0 failed"))

        // --parallel: XCTest's worker processes each write a trace; results from SwiftPM's xUnit file.
        let parallel = try run(
            Paths.trail, ["test", "--package", package, "--parallel", "--skip", "slow"],
            environment: ["MIXED_FAIL": "1"])
        #expect(parallel.stdout.contains("== trail test: 5 passed, 2 failed"), "\(parallel.stdout.suffix(3000))")
        #expect(parallel.stdout.contains("CalcXCTests.testDouble failed; its calls"))
        let traces = try FileManager.default.contentsOfDirectory(atPath: package + "/.build/trail-shadow/traces/latest")
        #expect(traces.filter { $0.hasSuffix(".trace") }.count >= 4, "\(traces)")

        try interruptAtEachStep(package, base: base)

        // --diff: the last run (slow() without sleeping, in interruptAtEachStep) against one sleeping 1 s: slow()
        // rose most, so it tops the list.
        let slower = try run(
            Paths.trail, ["test", "--package", package, "--filter", "slow", "--diff", "--threshold", "10%"],
            environment: ["MIXED_SLEEP": "1"])
        let diff = try #require(
            slower.stdout.range(
                of: "== changes since the previous run, largest regressions first (trail report --diff "),
            "\(slower.stdout.suffix(3000))")
        let rows = slower.stdout[diff.upperBound...].split(separator: "\n").drop { !$0.hasPrefix("  ====") }.dropFirst()
        #expect(rows.first?.hasSuffix(" CalcTests.slow()") == true, "\(slower.stdout[diff.lowerBound...])")
        #expect(rows.first?.contains(" s  ") == true, "a rise of about a second")
        let badThreshold = try run(Paths.trail, ["test", "--package", package, "--diff", "--threshold", "5"])
        #expect(badThreshold.status == 2 && badThreshold.stderr.contains("--threshold: a time with its unit"))

        // --values: every file instrumented again; a failing test's calls show arguments and results, and the `try`
        // in testFixture's XCTAssertEqual (an autoclosure) leaves no unreachable `catch` behind.
        let values = try run(
            Paths.trail, ["test", "--package", package, "--values", "--filter", "CalcXCTests"],
            environment: ["MIXED_FAIL": "1"])
        #expect(values.stdout.contains("== trail test: 2 passed, 1 failed"), "\(values.stdout.suffix(3000))")
        #expect(values.stdout.contains("Calc.add(2, 2) = 4;"), "\(values.stdout.suffix(3000))")
        #expect(values.stdout.contains("} = 4 /* Calc.double(_:) */"))
        #expect(!(values.stdout + values.stderr).contains("is unreachable"))

        // Release, with --diff and no earlier run left.
        try FileManager.default.removeItem(atPath: package + "/.build/trail-shadow/traces")
        let release = try run(
            Paths.trail, ["test", "--package", package, "-c", "release", "--filter", "sum", "--diff"])
        #expect(release.stdout.contains("== trail test: 1 passed, 0 failed"), "\(release.stderr.suffix(2000))")
        #expect(release.stdout.contains("== --diff: no previous run with traces to compare with"))
        #expect(FileManager.default.fileExists(atPath: package + "/.build/trail-shadow/build/release"))

        let help = try run(Paths.trail, ["test", "--help"], check: true).stdout
        for option in ["--filter", "--skip", "--parallel", "--configuration", "--diff", "--threshold"] {
            #expect(help.contains(option))
        }
    }

    /// Ctrl-C while copying, building and testing stops at once, with no child left; the next run passes.
    func interruptAtEachStep(_ package: String, base: String) throws {
        let source = package + "/Sources/Calc/Calc.swift"
        for (step, marker) in [
            ("copying", "trail test: copying"), ("building", "Compiling"), ("testing", "Test slow() started"),
        ] {
            // An edit, so that there is something to copy and build.
            try (String(contentsOfFile: source, encoding: .utf8) + "// \(step)\n")
                .write(toFile: source, atomically: true, encoding: .utf8)
            let trail = try BackgroundTrail(
                ["test", "--package", package, "--filter", "slow"], in: base, environment: ["MIXED_SLEEP": "120"])
            #expect(trail.wait(for: marker, seconds: 240), "\(step): \(trail.log.suffix(2000))")
            kill(trail.pid, SIGINT)
            let status = trail.exitStatus(within: 15)
            #expect(status == 130, "\(step): \(trail.log.suffix(2000))")
            #expect(trail.log.contains("trail: interrupted"))
            #expect(processes(naming: package).isEmpty, "\(step): left running: \(processes(naming: package))")
        }
        let again = try run(Paths.trail, ["test", "--package", package, "--filter", "slow"])
        #expect(again.status == 0, "\(again.stderr.suffix(2000))")
        #expect(again.stdout.contains("== trail test: 1 passed, 0 failed"), "\(again.stdout.suffix(2000))")
        // The copy is whole: each source instrumented.
        let copied = try String(contentsOfFile: package + "/.build/trail-shadow/package/Sources/Calc/Calc.swift")
        #expect(copied.contains("// testing") && copied.contains("Trail.enter(\"Calc.double(_:)"))
    }

    /// Processes whose command line names `path` (the traced package's builds and tests).
    func processes(naming path: String) -> [String] {
        var found: [String] = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int32(name) != nil {
            guard let data = FileManager.default.contents(atPath: "/proc/\(name)/cmdline") else { continue }
            let line = String(decoding: data.map { $0 == 0 ? 32 : $0 }, as: UTF8.self)
            if line.contains(path) { found.append(name + ": " + line.prefix(200)) }
        }
        return found
    }
}
