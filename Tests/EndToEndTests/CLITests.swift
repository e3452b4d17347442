import Foundation
import Testing
import TrailTestSupport

/// `trail instrument` and `trail strip` as a user runs them.
@Suite struct CLITests {
    func tree() throws -> String {
        let directory = Paths.temporaryDirectory("cli")
        try FileManager.default.createDirectory(
            atPath: directory + "/Sources/App/Sub", withIntermediateDirectories: true)
        try "import Foundation\nfunc main() {}\n".write(
            toFile: directory + "/Sources/App/main.swift", atomically: true, encoding: .utf8)
        try "struct S {\n    func f() -> Int { 1 }\n}\n".write(
            toFile: directory + "/Sources/App/Sub/S.swift", atomically: true, encoding: .utf8)
        try "func broken( {\n".write(toFile: directory + "/Sources/App/Broken.swift", atomically: true, encoding: .utf8)
        try "func skipped() {}\n".write(
            toFile: directory + "/Sources/App/Generated.swift", atomically: true, encoding: .utf8)
        return directory
    }

    @Test func inPlaceReportsBadFilesAndProcessesTheRest() throws {
        let directory = try tree()
        let broken = Transcript.read(directory + "/Sources/App/Broken.swift")
        let result = try run(Paths.trail, ["instrument", "--in-place", "--exclude", "Generated.swift", directory])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(directory)/Sources/App/Broken.swift:1:"))
        #expect(result.stderr.contains(": error: "))
        #expect(result.stderr.contains("instrumented 2 files"))
        #expect(Transcript.read(directory + "/Sources/App/Broken.swift") == broken)
        #expect(Transcript.read(directory + "/Sources/App/Generated.swift") == "func skipped() {}\n")
        #expect(
            Transcript.read(directory + "/Sources/App/Sub/S.swift").contains(
                #"Trail.enter("App.S.f() @ App/S.swift:2")"#))

        let strip = try run(
            Paths.trail, ["strip", "--in-place", directory + "/Sources/App/main.swift", directory + "/Sources/App/Sub"])
        #expect(strip.status == 0)
        #expect(Transcript.read(directory + "/Sources/App/main.swift") == "import Foundation\nfunc main() {}\n")
    }

    @Test func dryRunPrintsADiffAndWritesNothing() throws {
        let directory = try tree()
        let result = try run(
            Paths.trail, ["instrument", "--dry-run", "--exclude", "Broken.swift", directory + "/Sources"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("--- a/\(directory)/Sources/App/Sub/S.swift"))
        #expect(result.stdout.contains("-    func f() -> Int { 1 }"))
        #expect(result.stdout.contains("+    func f() -> Int {/*<trail*/"))
        #expect(Transcript.read(directory + "/Sources/App/Sub/S.swift") == "struct S {\n    func f() -> Int { 1 }\n}\n")
    }

    @Test func outputDirectoryMirrorsTheTree() throws {
        let directory = try tree()
        let output = directory + "/out"
        let result = try run(
            Paths.trail,
            ["instrument", "-o", output, "--jobs", "1", "--exclude", "Broken.swift", directory + "/Sources"])
        #expect(result.status == 0)
        #expect(Transcript.read(output + "/App/Sub/S.swift").contains("Trail.enter"))
        #expect(Transcript.read(output + "/App/Generated.swift").contains("Trail.enter"))
    }

    @Test func buildCopyOfAFileThatDoesNotParseIsTheFileAsWritten() throws {
        let directory = try tree()
        let broken = directory + "/Sources/App/Broken.swift"
        let copy = directory + "/copy/Broken.trail.swift"
        let plugin = try run(
            Paths.trail, ["instrument", "--line-directive", "--module", "App", "--output-file", copy, broken])
        #expect(plugin.status == 0)
        #expect(plugin.stderr.contains("\(broken):1:"))
        #expect(plugin.stderr.contains("note: compiled without tracing"))
        #expect(Transcript.read(copy) == "#sourceLocation(file: \"\(broken)\", line: 1)\nfunc broken( {\n")
        // In place, the error stands and the file stays as it was.
        let inPlace = try run(Paths.trail, ["instrument", "--in-place", broken])
        #expect(inPlace.status == 1)
        #expect(inPlace.stderr.contains(": error: "))
    }

    @Test func experimentalFeaturesAreCheckedByName() throws {
        let directory = try tree()
        let file = directory + "/Sources/App/Sub/S.swift"
        let bad = try run(Paths.trail, ["instrument", "--experimental-feature", "NoSuchFeature", file])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("unknown experimental feature 'NoSuchFeature'"))
        let fromEnvironment = try run(
            Paths.trail, ["instrument", file], environment: ["TRAIL_EXPERIMENTAL_FEATURES": "Bogus"])
        #expect(fromEnvironment.status == 2)
        #expect(fromEnvironment.stderr.contains("'Bogus'"))
        let good = try run(
            Paths.trail, ["instrument", "--experimental-feature", "CoroutineAccessors", file],
            environment: ["TRAIL_EXPERIMENTAL_FEATURES": "DoExpressions,ThenStatements"])
        #expect(good.status == 0)
        #expect(good.stdout.contains("Trail.enter"))
    }

    @Test func scanWithNoPathWritesAnEmptyList() throws {
        let list = Paths.temporaryDirectory("scan") + "/Declarations.swift"
        let result = try run(Paths.trail, ["scan", "--output", list])
        #expect(result.status == 0, "\(result.stderr)")
        let text = Transcript.read(list)
        #expect(text.hasPrefix("// Written by `trail scan`"))
        #expect(!text.contains("// never") && !text.contains("// builder"))
    }

    /// The modules a target imports (`--dependency`, which the plugin passes) add their aliases of function types
    /// and result builders to the list, so that a parameter of another module's `Shouting` is not passed to a
    /// recorder; not their `Never` functions, whose names the target may use for functions that return.
    @Test func scanTakesWhatDependenciesDeclareThatCrossesModules() throws {
        let directory = Paths.temporaryDirectory("scan-dependencies")
        try "public typealias Shouting = (String) -> String\n@resultBuilder public enum LineBuilder {}\n"
            .appending("public func stop() -> Never { fatalError() }\n")
            .write(toFile: directory + "/Shout.swift", atomically: true, encoding: .utf8)
        try "func relay(_ shout: Shouting) -> String { shout(\"a\") }\nfunc halt() -> Never { fatalError() }\n"
            .write(toFile: directory + "/App.swift", atomically: true, encoding: .utf8)
        let list = directory + "/Declarations.swift"
        let result = try run(
            Paths.trail,
            ["scan", "--output", list, "--dependency", directory + "/Shout.swift", directory + "/App.swift"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = Transcript.read(list).split(separator: "\n").dropFirst()
        #expect(lines == ["// never halt", "// builder LineBuilder", "// function-alias Shouting"])
    }

    /// A build copy names its input in `#sourceLocation`, except a copy named main.swift: naming another
    /// main.swift would give the module two paths for the `#fileID` `App/main.swift`, a warning.
    @Test func buildCopyOfMainNamesItself() throws {
        let directory = try tree()
        let copies = directory + "/copies"
        for (input, output) in [("main.swift", "main/main.swift"), ("Sub/S.swift", "Sub+S.trail.swift")] {
            let result = try run(
                Paths.trail,
                [
                    "instrument", "--module", "App", "--line-directive", "--debug-only",
                    "--output-file", copies + "/" + output, directory + "/Sources/App/" + input,
                ])
            #expect(result.status == 0, "\(result.stderr)")
        }
        let main = Transcript.read(copies + "/main/main.swift")
        #expect(main.hasPrefix("#if DEBUG\n#sourceLocation(file: \"\(copies)/main/main.swift\", line: 1)\n"))
        #expect(!main.contains("Sources/App/main.swift"))
        #expect(
            Transcript.read(copies + "/Sub+S.trail.swift")
                .hasPrefix("#if DEBUG\n#sourceLocation(file: \"\(directory)/Sources/App/Sub/S.swift\", line: 1)\n"))
    }

    @Test func helpForEveryVerbAndUsageErrors() throws {
        let top = try run(Paths.trail, ["--help"])
        #expect(top.status == 0)
        #expect(top.stdout.contains("instrument"))
        for verb in ["instrument", "strip", "setup"] {
            let help = try run(Paths.trail, [verb, "--help"])
            #expect(help.status == 0)
            #expect(help.stdout.contains("Usage: trail \(verb)"))
            #expect(help.stdout.contains("--dry-run"))
        }
        let unknown = try run(Paths.trail, ["instrument", "--frobnicate", "x"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("unknown option '--frobnicate'"))
        let missing = try run(Paths.trail, ["strip", "--dry-run", "/nonexistent/path"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("/nonexistent/path"))
        #expect(try run(Paths.trail, ["nope"]).status == 2)
        // A forgotten value does not swallow the next option.
        let swallowed = try run(Paths.trail, ["symbolize", "--obj", "--json", Paths.trail])
        #expect(swallowed.status == 2)
        #expect(swallowed.stderr.contains("option '--obj' needs a value (BINARY), not the option '--json'"))
    }

    /// uftrace's habits where they fit: `--version` and `trail help VERB`; flags that cannot go together, or
    /// would be ignored, are usage errors; a file that is not a trace is called that.
    @Test func versionHelpConflictsAndNotATrace() throws {
        let version = try run(Paths.trail, ["--version"], check: true)
        #expect(version.stdout.hasPrefix("trail 0."))
        for verb in ["replay", "test", "symbolize"] {
            let help = try run(Paths.trail, ["help", verb], check: true)
            #expect(help.stdout.contains("Usage: trail \(verb)"))
        }
        let cases: [([String], String)] = [
            (["export", "--chrome", "--otlp", "x.trace"], "--chrome and --otlp cannot be given together"),
            (
                ["export", "--otlp-logs", "--min-duration", "5us", "x.log"],
                "--min-duration and --otlp-logs cannot be given together"
            ),
            (["export", "--summary", "x.trace"], "--summary means something only with --otlp"),
            (["flamegraph", "--calls", "x.trace"], "--calls means something only with --folded"),
            (["symbolize", "--json", "x.log"], "--json means something only with --obj"),
        ]
        for (arguments, message) in cases {
            let refused = try run(Paths.trail, arguments)
            #expect(refused.status == 2, "\(arguments)")
            #expect(refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
        }
        let folder = Paths.temporaryDirectory("not-a-trace")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 7919 &+ 13) }
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/random.bin"))
        for verb in ["report", "replay", "flamegraph"] {
            let refused = try run(Paths.trail, [verb, folder + "/random.bin"])
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("random.bin: not a trail trace file"), "\(verb): \(refused.stderr)")
        }
    }

    /// One settings table: `trail --help` and `trail help settings` print it, Docs/settings.md is its Markdown,
    /// and every `TRAIL_*` variable the sources read is in it.
    @Test func oneSettingsTableForHelpAndDocs() throws {
        let markdown = try run(Paths.trail, ["help", "settings", "--markdown"], check: true).stdout
        #expect(
            Transcript.firstDifference(markdown, Transcript.read(Paths.packageRoot + "/Docs/settings.md")) == nil,
            "Docs/settings.md is stale: write it with 'trail help settings --markdown > Docs/settings.md'")
        let help = try run(Paths.trail, ["--help"], check: true).stdout
        var read: Set<String> = []
        for folder in ["Sources", "Plugins"] {
            for path in try FileManager.default.subpathsOfDirectory(atPath: Paths.packageRoot + "/" + folder)
            where path.hasSuffix(".swift") || path.hasSuffix(".c") {
                let text = Transcript.read(Paths.packageRoot + "/\(folder)/\(path)")
                var rest = text[...]
                while let start = rest.range(of: "\"TRAIL") {
                    let name = rest[rest.index(after: start.lowerBound)...].prefix { $0.isUppercase || $0 == "_" }
                    if name == "TRAIL" || name.hasPrefix("TRAIL_"), !name.hasSuffix("_"),
                        !path.hasSuffix("SettingsTable.swift")
                    {
                        read.insert(String(name))
                    }
                    rest = rest[start.upperBound...]
                }
            }
        }
        #expect(read.count > 25)
        for name in read.sorted() {
            #expect(markdown.contains("| `\(name)` |"), "\(name) is read but not in SettingsTable")
            #expect(help.contains("  \(name) "), "\(name) is not in trail --help")
        }
    }

    /// README's settings table is the run-time part of `trail --help`'s, row for row: the same variables, values
    /// and defaults.
    @Test func readmeListsTheRunTimeSettingsAsTrailHelpDoes() throws {
        let markdown = try run(Paths.trail, ["help", "settings", "--markdown"], check: true).stdout
        var group = ""
        var runTime: [Substring] = []
        for line in markdown.split(separator: "\n") {
            if line.hasPrefix("## ") { group = String(line.dropFirst(3)) }
            if line.hasPrefix("| `TRAIL"),
                ["Tracing, at run time", "Logging, after Trail.bootstrap", "Crashes"]
                    .contains(group)
            {
                runTime.append(line)
            }
        }
        let readme = Transcript.read(Paths.packageRoot + "/README.md")
        let section =
            readme.components(separatedBy: "## Settings").dropFirst().first?
            .components(separatedBy: "\n## ").first ?? ""
        let listed = section.split(separator: "\n").filter { $0.hasPrefix("| `TRAIL") }
        #expect(runTime.count > 20)
        #expect(
            listed == runTime,
            "README's settings table differs from trail --help's; copy the rows from Docs/settings.md")
    }

    /// A one-file executable with `@main` builds only if SwiftPM finds `@main` by reading its lines: instrumented
    /// in place, with an import or without one, it still does, runs traced, and strips back byte for byte.
    @Test func oneFileExecutablesKeepTheirMainInPlace() throws {
        let package = Paths.temporaryDirectory("solo")
        defer { try? FileManager.default.removeItem(atPath: package) }
        let sources = [
            "Solo":
                "// Solo: one file\nimport Foundation\n\n@main\nstruct Solo {\n    static func main() { print(greeting()) }\n    static func greeting() -> String { \"hi\" }\n}\n",
            "Bare": "@main\nstruct Bare {\n    static func main() { print(\"bare\") }\n}\n",
            "Unended": "@main\nstruct Unended {\n    static func main() { print(\"unended\") }\n}",
        ]
        for (name, text) in sources {
            try FileManager.default.createDirectory(
                atPath: package + "/Sources/" + name, withIntermediateDirectories: true)
            try text.write(toFile: package + "/Sources/\(name)/\(name).swift", atomically: true, encoding: .utf8)
        }
        try """
        // swift-tools-version:6.0
        import PackageDescription
        let package = Package(
            name: "Solo",
            dependencies: [.package(name: "swift-trail", path: \(String(reflecting: Paths.packageRoot)))],
            targets: ["Solo", "Bare", "Unended"].map { .executableTarget(name: $0, dependencies: [.product(name: "Trail", package: "swift-trail")]) }
        )

        """.write(toFile: package + "/Package.swift", atomically: true, encoding: .utf8)
        try run(Paths.trail, ["instrument", "--in-place", package + "/Sources"], check: true)
        try run("swift", ["build", "--package-path", package], check: true)
        let solo = try run(package + "/.build/debug/Solo", [], environment: ["TRAIL_TRACE": "1"], check: true)
        #expect(solo.stdout == "hi\n")
        #expect(solo.stderr.contains("-> Solo.Solo.greeting()"), "\(solo.stderr)")
        #expect(try run(package + "/.build/debug/Bare", [], check: true).stdout == "bare\n")
        #expect(try run(package + "/.build/debug/Unended", [], check: true).stdout == "unended\n")
        try run(Paths.trail, ["strip", "--in-place", package + "/Sources"], check: true)
        for (name, text) in sources {
            #expect(Transcript.read(package + "/Sources/\(name)/\(name).swift") == text)
        }
    }

    /// `trail` runs the viewers itself and hands the verbs that parse Swift or XML to the binaries beside it:
    /// every verb is listed and reachable, and a missing binary is named with the command that builds it.
    @Test func verbsHandedToTheBinariesBesideTrail() throws {
        let top = try run(Paths.trail, ["--help"])
        for verb in [
            "instrument", "strip", "scan", "setup", "resources", "replay", "report", "export", "flamegraph",
            "symbolize",
        ] {
            #expect(top.stdout.contains("\n  \(verb) "), "trail --help lists \(verb)")
        }
        let resources = try run(Paths.trail, ["resources", "--help"])
        #expect(resources.status == 0)
        #expect(resources.stdout.contains("Usage: trail resources"))
        let noResources = try run(Paths.trail, ["resources", "-o", "/dev/null", "/nonexistent/image.png"])
        #expect(noResources.status == 1)
        #expect(noResources.stderr.contains("/nonexistent/image.png"), "\(noResources.stderr)")
        // What the forwarded binary does comes back whole: its output, its errors, its exit status.
        let directory = Paths.temporaryDirectory("forward")
        try "func f() {}\n".write(toFile: directory + "/F.swift", atomically: true, encoding: .utf8)
        let instrumented = try run(Paths.trail, ["instrument", "--in-place", directory + "/F.swift"])
        #expect(instrumented.status == 0, "\(instrumented.stderr)")
        #expect(try String(contentsOfFile: directory + "/F.swift", encoding: .utf8).contains("Trail.enter"))
        let broken = try run(
            Paths.trail, ["scan", "--output", directory + "/list.swift", directory + "/missing.swift"])
        #expect(broken.status == 1)
        #expect(broken.stderr.contains(directory + "/missing.swift"))

        // `trail` alone in a folder: the verbs it holds still run, a forwarded one says what to build.
        let alone = Paths.temporaryDirectory("alone")
        // A hard link where it can be: a copy's write descriptor, inherited by a child another test spawns at
        // that moment, makes exec fail with "Text file busy".
        if link(Paths.trail, alone + "/trail") != 0 {
            try FileManager.default.copyItem(atPath: Paths.trail, toPath: alone + "/trail")
            usleep(200_000)
        }
        let missing = try run(alone + "/trail", ["instrument", "--in-place", directory + "/F.swift"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("cannot run \(alone)/trail-rewrite: No such file or directory"))
        #expect(missing.stderr.contains("swift build --product trail-rewrite"))
        #expect(try run(alone + "/trail", ["report", "--help"]).status == 0)
    }
}
