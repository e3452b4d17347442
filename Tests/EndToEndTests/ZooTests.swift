import Foundation
import Testing
import TrailTestSupport

/// The syntax zoo compiled plain and instrumented: the same output, and the expected trace.
@Suite struct ZooTests {
    static let zoo = Paths.fixture("Zoo")

    /// ZooLog, a module the zoo imports, whose `Logger` and `LogSink` are also names in Trail, and whose `Card`
    /// protocol carries a result builder to its conformers, as SwiftUI's `View` does.
    static func compileLogModule(into directory: String) throws {
        let sources = try FileManager.default.contentsOfDirectory(atPath: Paths.fixture("ZooLog")).filter {
            $0.hasSuffix(".swift")
        }
        try run(
            "swiftc",
            [
                "-module-name", "ZooLog", "-parse-as-library", "-emit-module", "-emit-library", "-static",
                "-emit-module-path", directory + "/ZooLog.swiftmodule", "-o", directory + "/libZooLog.a",
            ]
                + sources.sorted().map { Paths.fixture("ZooLog") + "/" + $0 }, check: true)
    }

    /// Compiles the zoo (or an instrumented copy of it) with swiftc, against the runtime when traced, in a
    /// language mode: Swift 6 opens existentials passed to generic parameters (SE-0352) and makes sendability
    /// errors of what Swift 5 warns about, so a traced value must type-check as its `return` did in both.
    static func compile(_ sources: String, traced: Bool, into directory: String, swiftVersion: String = "5") throws
        -> String
    {
        let files = try FileManager.default.contentsOfDirectory(atPath: sources).filter { $0.hasSuffix(".swift") }
            .sorted()
        let output = directory + (traced ? "/zoo-traced" : "/zoo-plain") + "-swift" + swiftVersion
        // Warnings are errors: what the rewriter inserts must not warn, or such packages stop building.
        var arguments =
            [
                "-module-name", "Zoo", "-swift-version", swiftVersion, "-Onone", "-g", "-warnings-as-errors",
                "-o", output,
                // Values.swift returns a Span, a ~Escapable value.
                "-enable-experimental-feature", "Lifetimes",
                "-I", directory, "-L", directory, "-lZooLog",
            ]
            + files.map { sources + "/" + $0 }
        if traced {
            let build = Paths.buildDirectory
            arguments += [
                "-I", build + "/Modules", "-I", Paths.packageRoot + "/Sources/CTrailHooks/include",
                "-L", build, "-lTrailDynamic", "-Xlinker", "-rpath", "-Xlinker", build,
            ]
        }
        try run("swiftc", arguments, check: true)
        return output
    }

    static let built: (plain: String, traced: String, directory: String) = {
        let directory = Paths.temporaryDirectory("zoo")
        let instrumented = directory + "/src"
        try! run(
            Paths.trail, ["instrument", "--closures", "--module", "Zoo", "--output", instrumented, zoo], check: true)
        try! compileLogModule(into: directory)
        return (
            try! compile(zoo, traced: false, into: directory),
            try! compile(instrumented, traced: true, into: directory), directory
        )
    }()

    @Test func plainAndInstrumentedPrintTheSame() throws {
        let plain = try run(Self.built.plain, [], check: true)
        let traced = try run(Self.built.traced, [], check: true)
        #expect(plain.stdout == traced.stdout)
        #expect(plain.stdout.contains("released r1"))
        // Off by default: nothing is traced.
        #expect(traced.stderr.isEmpty)
    }

    /// Contexts.swift holds the values whose type the result type gives (existential metatypes, closures that
    /// take `@Sendable` or a global actor from it, labeled tuples, overloads), which Swift 6 checks differently.
    @Test func swift6LanguageModeCompilesTracedAndPrintsTheSame() throws {
        let directory = Self.built.directory
        let plain = try Self.compile(Self.zoo, traced: false, into: directory, swiftVersion: "6")
        let traced = try Self.compile(directory + "/src", traced: true, into: directory, swiftVersion: "6")
        let plainOutput = try run(plain, [], check: true).stdout
        #expect(plainOutput == (try run(Self.built.plain, [], check: true)).stdout)
        #expect(plainOutput.contains("contexts: square square"))
        let tracedRun = try run(traced, [], environment: ["TRAIL_TRACE": "1"], check: true)
        #expect(tracedRun.stdout == plainOutput)
        let expected = Transcript.read(Self.zoo + "/expected-trace.txt")
        #expect(Transcript.firstDifference(Transcript.maskTrace(tracedRun.stderr), expected) == nil)
    }

    @Test func traceMatchesTheExpectedTranscript() throws {
        let traced = try run(Self.built.traced, [], environment: ["TRAIL_TRACE": "1"], check: true)
        let actual = Transcript.maskTrace(traced.stderr)
        let expected = Transcript.read(Self.zoo + "/expected-trace.txt")
        #expect(Transcript.firstDifference(actual, expected) == nil)
    }

    /// The build plugin's copies (`--line-directive`): lines are added where code follows a brace, and the
    /// zoo still compiles without warnings and traces the same.
    @Test func pluginCopiesCompileAndTraceTheSame() throws {
        let directory = Paths.temporaryDirectory("zoo-copies")
        let copies = directory + "/src"
        try run(
            Paths.trail,
            ["instrument", "--closures", "--module", "Zoo", "--line-directive", "--output", copies, Self.zoo],
            check: true)
        // As the plugin names them, so that a copy's #fileID differs from the original's it names; main.swift,
        // top-level code only, is compiled as written.
        for name in try FileManager.default.contentsOfDirectory(atPath: copies) where name.hasSuffix(".swift") {
            let path = copies + "/" + name
            if name == "main.swift" {
                try FileManager.default.removeItem(atPath: path)
                try FileManager.default.copyItem(atPath: Self.zoo + "/main.swift", toPath: path)
            } else {
                try FileManager.default.moveItem(atPath: path, toPath: copies + "/" + name.dropLast(6) + ".trail.swift")
            }
        }
        try Self.compileLogModule(into: directory)
        let binary = try Self.compile(copies, traced: true, into: directory)
        let traced = try run(binary, [], environment: ["TRAIL_TRACE": "1"], check: true)
        #expect(traced.stdout == (try run(Self.built.plain, [], check: true)).stdout)
        let expected = Transcript.read(Self.zoo + "/expected-trace.txt")
        #expect(Transcript.firstDifference(Transcript.maskTrace(traced.stderr), expected) == nil)
    }

    @Test func instrumentedCopyKeepsEveryLine() throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.zoo) where name.hasSuffix(".swift") {
            let original = Transcript.read(Self.zoo + "/" + name)
            let copy = Transcript.read(Self.built.directory + "/src/" + name)
            #expect(
                original.split(separator: "\n", omittingEmptySubsequences: false).count
                    == copy.split(separator: "\n", omittingEmptySubsequences: false).count, "\(name)")
        }
    }
}
