import Foundation
import Testing
import TrailTestSupport

/// swift-trail added the way every package is added: `.package(url:, from: "1.0.0")`, from a git repository tagged
/// 1.0.0 made of this checkout. SwiftPM refuses a versioned dependency whose targets carry unsafe flags unless its
/// manifest says `swift-tools-version:6.2` or later, so this is what holds the manifest to that.
@Suite struct VersionedDependencyTests {
    /// This checkout's files (committed or not, ignored ones left out) as a repository named swift-trail, tagged
    /// 1.0.0: the folder's name is the package's identity, as `https://github.com/<you>/swift-trail` gives it.
    static func taggedRepository(in base: String) throws -> String {
        let repository = base + "/swift-trail"
        try FileManager.default.createDirectory(atPath: repository, withIntermediateDirectories: true)
        let script = """
            set -euo pipefail
            git -C "$1" ls-files -z --cached --others --exclude-standard | (cd "$1" && tar --null -T - -cf -) \
              | tar -x -C "$2"
            cd "$2"
            git init -q && git add -A
            git -c user.name=swift-trail -c user.email=swift-trail@localhost commit -qm "swift-trail 1.0.0"
            git tag 1.0.0
            """
        try run("/bin/bash", ["-c", script, "tag", Paths.packageRoot, repository], check: true)
        return repository
    }

    /// A consumer package: `Package.swift` with the given dependency line and target, and its main.swift.
    static func consumer(
        _ directory: String, dependency: String, target: String, main: String
    ) throws {
        try FileManager.default.createDirectory(atPath: directory + "/Sources/App", withIntermediateDirectories: true)
        try """
        // swift-tools-version:6.2
        import PackageDescription
        let package = Package(
            name: "App",
            dependencies: [\(dependency)],
            targets: [\(target)]
        )

        """.write(toFile: directory + "/Package.swift", atomically: true, encoding: .utf8)
        try main.write(toFile: directory + "/Sources/App/main.swift", atomically: true, encoding: .utf8)
    }

    /// `Trail` alone builds and logs, resolves nothing of the integrations, and `trail setup` then `TRAIL=1` traces
    /// the package through the plugin from the same versioned dependency.
    @Test func trailAloneAndThePluginFromATaggedRepository() throws {
        let base = Paths.temporaryDirectory("versioned")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let repository = try Self.taggedRepository(in: base)
        let app = base + "/app"
        try Self.consumer(
            app, dependency: ".package(url: \(String(reflecting: "file://" + repository)), from: \"1.0.0\")",
            target: #".executableTarget(name: "App", dependencies: [.product(name: "Trail", package: "swift-trail")])"#,
            main: """
                import Trail
                func twice(_ n: Int) -> Int { n * 2 }
                Logger(label: "app").info("twice \\(twice(21))")
                print(twice(21))

                """)
        // One scratch folder for both builds: the traced one reuses the untraced one's Trail.
        let scratch = ["--package-path", app, "--scratch-path", app + "/.build"]
        try run("swift", ["build"] + scratch, check: true)
        let resolved = Transcript.read(app + "/Package.resolved")
        #expect(resolved.contains(#""version" : "1.0.0""#), "\(resolved)")
        #expect(!resolved.contains("swift-log"), "Trail alone resolves nothing of swift-log: \(resolved)")

        let plain = try run(app + "/.build/debug/App", [], check: true)
        #expect(plain.stdout == "42\n")
        #expect(plain.stderr.contains("info app: twice 42"), "\(plain.stderr)")

        let setup = try run(Paths.trail, ["setup", "--package", app], check: true)
        #expect(setup.stderr.contains("trail setup: set up App"), "\(setup.stderr)")
        try run("swift", ["build"] + scratch, environment: ["TRAIL": "1"], check: true)
        let traced = try run(app + "/.build/debug/App", [], environment: ["TRAIL_TRACE": "1"], check: true)
        #expect(traced.stdout == "42\n")
        #expect(traced.stderr.contains("-> App.twice(_:)  (App/main.swift:2)"), "\(traced.stderr)")
    }

    /// Both traits from the versioned dependency: swift-log's lines land in Trail's log, inside the span a
    /// swift-distributed-tracing `withSpan` opened, which the trace records.
    @Test func bothTraitsFromATaggedRepository() throws {
        let base = Paths.temporaryDirectory("versioned-traits")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let repository = try Self.taggedRepository(in: base)
        let app = base + "/app"
        let products = ["TrailLogging", "TrailTracing"].map { ".product(name: \"\($0)\", package: \"swift-trail\")" }
        try Self.consumer(
            app,
            dependency: """
                .package(url: \(String(reflecting: "file://" + repository)), from: "1.0.0", \
                traits: ["TrailLogging", "TrailTracing"])
                """,
            target: ".executableTarget(name: \"App\", dependencies: [\(products.joined(separator: ", "))])",
            main: """
                import Logging
                import Trail
                import TrailLogging
                import TrailTracing
                import Tracing

                try Trail.bootstrap()
                LoggingSystem.bootstrap { TrailLogHandler(label: $0) }
                InstrumentationSystem.bootstrap(TrailTracer())
                withSpan("handle request") { _ in Logging.Logger(label: "library").info("inside the span") }
                print("done")

                """)
        // Without the local copies (no ../shared/packages), SwiftPM fetches swift-log from its URL.
        if FileManager.default.fileExists(atPath: IntegrationTests.offlinePackages) {
            try run(
                "/bin/bash",
                [
                    Paths.packageRoot + "/Scripts/offline-packages.sh", IntegrationTests.offlinePackages,
                    Paths.packageRoot + "/.build/offline-packages", app,
                ], check: true)
        }
        try run("swift", ["build", "--package-path", app, "--scratch-path", app + "/.build"], check: true)
        let logs = base + "/logs"
        let result = try run(
            app + "/.build/debug/App", [],
            environment: ["TRAIL_LOG_DIR": logs, "TRAIL_LOG_FORMAT": "json", "TRAIL_TRACE": "record"],
            check: true)
        #expect(result.stdout == "done\n")
        let lines = try IntegrationTests.lines(inLogsOf: logs)
        let inside = lines.filter { $0.contains("inside the span") }
        #expect(inside.count == 1, "\(lines)")
        #expect(inside.allSatisfy { $0.contains(#""trace_id":""#) }, "the line names the span's trace: \(inside)")
        let replay = try run(Paths.trail, ["replay", logs], check: true)
        #expect(replay.stdout.contains("handle request"), "\(replay.stdout)")
    }
}
