import Foundation
import Testing
import TrailTestSupport

/// `trail test`, `trail run` and `trail record` on a package made here, with a path dependency of its own and
/// no mention of swift-trail: nothing in it is edited, and a newcomer gets a call tree in one command.
@Suite struct TracePackageTests {
    /// Greeter (a library, an executable, Swift Testing tests with one failing) beside Util, a path dependency.
    static func makePackages() throws -> String {
        let base = Paths.temporaryDirectory("newcomer")
        let files: [String: String] = [
            "util/Package.swift": """
            // swift-tools-version:6.0
            import PackageDescription
            let package = Package(name: "Util", products: [.library(name: "Util", targets: ["Util"])], targets: [.target(name: "Util")])

            """,
            "util/Sources/Util/Util.swift":
                "public func shout(_ text: String) -> String { text.uppercased() + \"!\" }\n",
            "greeter/Package.swift": """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "Greeter",
                dependencies: [.package(path: "../util")],
                targets: [
                    .target(name: "Greeting", dependencies: [.product(name: "Util", package: "util")]),
                    .executableTarget(name: "hello", dependencies: ["Greeting"]),
                    .testTarget(name: "GreetingTests", dependencies: ["Greeting"]),
                ]
            )

            """,
            "greeter/Sources/Greeting/Greeting.swift": """
            import Util

            public struct Greeter {
                public let name: String
                public init(name: String) { self.name = name }
                public func greeting(loud: Bool) -> String {
                    let text = "hello, " + name
                    return loud ? shout(text) : text
                }
                public func count(upTo limit: Int) -> Int {
                    (0..<limit).reduce(0) { $0 + weight($1) }
                }
                func weight(_ value: Int) -> Int { value % 3 }
            }

            """,
            "greeter/Sources/hello/main.swift": """
            import Greeting

            let greeter = Greeter(name: CommandLine.arguments.dropFirst().first ?? "world")
            print(greeter.greeting(loud: true))
            print(greeter.count(upTo: 5))

            """,
            "greeter/Tests/GreetingTests/GreetingTests.swift": """
            import Testing
            @testable import Greeting

            @Suite struct GreetingTests {
                @Test func quiet() { #expect(Greeter(name: "a").greeting(loud: false) == "hello, a") }
                @Test func loud() { #expect(Greeter(name: "a").greeting(loud: true) == "HELLO, A!") }
                @Test func counting() { #expect(Greeter(name: "a").count(upTo: 4) == 5) }
            }

            """,
        ]
        for (path, text) in files {
            let full = base + "/" + path
            try FileManager.default.createDirectory(
                atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: full, atomically: true, encoding: .utf8)
        }
        return base
    }

    /// Every file of the package outside `.build`, with its bytes.
    static func snapshot(_ package: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for path in try FileManager.default.subpathsOfDirectory(atPath: package) where !path.hasPrefix(".build") {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: package + "/" + path, isDirectory: &isFolder), !isFolder.boolValue
            {
                files[path] = FileManager.default.contents(atPath: package + "/" + path)
            }
        }
        return files
    }

    /// The text of `.target(name: "NAME", ...)` in a manifest, with its spacing squeezed.
    static func targetCall(_ name: String, in manifest: String) -> String? {
        guard let start = manifest.range(of: ".target(name: \"\(name)\"") else { return nil }
        var depth = 0
        var end = start.lowerBound
        for index in manifest[start.lowerBound...].indices {
            if manifest[index] == "(" { depth += 1 }
            if manifest[index] == ")" {
                depth -= 1
                if depth == 0 {
                    end = index
                    break
                }
            }
        }
        return manifest[start.lowerBound ... end].split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    @Test func testRunAndRecordTraceAPackageWithNothingToEdit() throws {
        let base = try Self.makePackages()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let package = base + "/greeter"
        let before = try Self.snapshot(package)

        // trail test: the tests run traced; the summary counts them, ranks the calls and shows the failing
        // test's calls; the exit status is the tests'.
        let test = try run(Paths.trail, ["test", "--package", package])
        #expect(test.status != 0)
        #expect(
            test.stdout.contains("== trail test: 2 passed, 1 failed"),
            "\(test.stdout.suffix(3000))\n\(test.stderr.suffix(3000))")
        #expect(test.stdout.contains("Greeting.Greeter.count(upTo:)"))
        let failing = try #require(test.stdout.range(of: "GreetingTests.GreetingTests.counting() failed; its calls"))
        let tree = test.stdout[failing.upperBound...]
        #expect(tree.contains("| GreetingTests.GreetingTests.counting() {"))
        #expect(tree.contains("|     Greeting.Greeter.weight(_:);"))
        #expect(!tree.contains("quiet()"))
        #expect(try Self.snapshot(package) == before, "trail test changed the package")
        let latest = package + "/.build/trail-shadow/traces/latest"
        #expect(try run(Paths.trail, ["replay", latest], check: true).stdout.contains("Greeting.Greeter.weight(_:);"))

        // The copy depends on the runtime alone, whose targets are declared as swift-trail's manifest declares them.
        let copyManifest = try String(
            contentsOfFile: package + "/.build/trail-shadow/package/Package.swift", encoding: .utf8)
        #expect(copyManifest.contains("path: \"\(package)/.build/trail-shadow/swift-trail\""))
        let runtime = try String(
            contentsOfFile: package + "/.build/trail-shadow/swift-trail/Package.swift", encoding: .utf8)
        let trailManifest = try String(contentsOfFile: Paths.packageRoot + "/Package.swift", encoding: .utf8)
        for target in ["CTrailShim", "CTrailHooks", "Trail", "TrailExit", "TrailFormat"] {
            let declared = Self.targetCall(target, in: trailManifest)
            #expect(
                declared != nil && declared == Self.targetCall(target, in: runtime),
                "\(target) is declared otherwise in the runtime package")
        }

        // A rerun after one edit copies that file and recompiles its target alone.
        let source = package + "/Sources/Greeting/Greeting.swift"
        try String(contentsOfFile: source, encoding: .utf8).replacingOccurrences(of: "value % 3", with: "min(value, 2)")
            .write(toFile: source, atomically: true, encoding: .utf8)
        // Two at once: one waits for the other, rather than copying files the other is building.
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var byIndex: [Int: ProcessResult] = [:]
        }
        let results = Results()
        let group = DispatchGroup()
        for index in 0 ..< 2 {  // threads of their own: concurrentPerform would run them one by one on one core
            group.enter()
            Thread.detachNewThread {
                let result = try? run(Paths.trail, ["test", "--package", package, "--filter", "counting"])
                results.lock.withLock { results.byIndex[index] = result }
                group.leave()
            }
        }
        group.wait()
        let both = try [#require(results.byIndex[0]), #require(results.byIndex[1])]
        let again = try #require(
            both.first { $0.stderr.contains("trail test: 1 file copied, 1 instrumented (4 bodies)") },
            "\(both[0].stderr.suffix(1500))\n\(both[1].stderr.suffix(1500))")
        #expect(both.contains { $0.stderr.contains("trail test: no file changed") })
        #expect(
            both.contains {
                $0.stderr.contains("another trail test or trail run is using .build/trail-shadow; waiting for it")
            }
                || both.contains { $0.stderr.contains("is using \(package)/.build/trail-shadow; waiting for it") },
            "\(both[0].stderr.prefix(600))\n\(both[1].stderr.prefix(600))")
        let log = again.stdout + again.stderr
        #expect(log.contains("Compiling Greeting Greeting.swift"))
        #expect(!log.contains("Compiling Util") && !log.contains("Compiling hello"))
        for run in both {
            #expect(run.status == 0)
            #expect(run.stdout.contains("== trail test: 1 passed, 0 failed"), "\(run.stdout.suffix(2000))")
        }

        // A change that does not compile: the build's own errors, then what failed.
        let text = try String(contentsOfFile: source, encoding: .utf8)
        try (text + "\nlet broken: Int = \"text\"\n").write(toFile: source, atomically: true, encoding: .utf8)
        let broken = try run(Paths.trail, ["test", "--package", package])
        #expect(broken.status != 0)
        #expect(
            (broken.stdout + broken.stderr).contains("cannot convert value of type 'String' to specified type 'Int'"))
        #expect(
            broken.stderr.contains("trail test: the traced build or test run of \(package) failed"),
            "\(broken.stderr.suffix(1500))")
        try text.write(toFile: source, atomically: true, encoding: .utf8)

        // trail run: the one executable product, its arguments, then its calls.
        let hello = try run(Paths.trail, ["run", "--package", package, "--", "Ann"])
        #expect(hello.status == 0, "\(hello.stderr.suffix(2000))")
        #expect(hello.stdout.hasPrefix("HELLO, ANN!\n7\n"), "\(hello.stdout.prefix(500))")
        #expect(hello.stdout.contains("Greeting.Greeter.greeting(loud:);"))
        #expect(hello.stdout.contains("} /* Greeting.Greeter.count(upTo:) */"))

        // trail record: a traced binary gives a folder to view; an untraced one says why there is nothing.
        let traced = package + "/.build/trail-shadow/build/debug/hello"
        let recorded = try run(Paths.trail, ["record", "-o", base + "/recorded", "--", traced, "Bo"])
        #expect(recorded.status == 0)
        #expect(recorded.stderr.contains("1 trace in \(base)/recorded"), "\(recorded.stderr)")
        let replay = try run(Paths.trail, ["replay", base + "/recorded"], check: true)
        #expect(replay.stdout.contains("Greeting.Greeter.init(name:);"))
        let untraced = try run(Paths.trail, ["record", "-o", base + "/none", "--", "/bin/true"])
        #expect(untraced.status == 1)
        #expect(untraced.stderr.contains("true wrote no trace: it does not hold the Trail runtime"))
        #expect(
            try Self.snapshot(package)
                == before.merging([
                    "Sources/Greeting/Greeting.swift": FileManager.default.contents(atPath: source)!
                ]) { $1 })
    }

    /// A package whose remote dependency was resolved once is traced with the remote gone: the copy reuses the
    /// package's resolved repositories and does not fetch updates. A Package.resolved that moved on is followed.
    @Test func resolvedRemoteDependenciesNeedNoNetwork() throws {
        let base = Paths.temporaryDirectory("offline")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let files = [
            "remote/Package.swift": """
            // swift-tools-version:5.9
            import PackageDescription
            let package = Package(name: "remote", products: [.library(name: "Remote", targets: ["Remote"])],
                                  targets: [.target(name: "Remote")])
            """,
            "remote/Sources/Remote/Remote.swift": "public func twice(_ value: Int) -> Int { value * 2 }\n",
            "app/Package.swift": """
            // swift-tools-version:5.9
            import PackageDescription
            let package = Package(
                name: "app",
                dependencies: [.package(url: "file://\(base)/remote", from: "1.0.0")],
                targets: [
                    .target(name: "App", dependencies: [.product(name: "Remote", package: "remote")]),
                    .testTarget(name: "AppTests", dependencies: ["App"]),
                ])
            """,
            "app/Sources/App/App.swift": "import Remote\npublic func four() -> Int { twice(2) }\n",
            "app/Tests/AppTests/AppTests.swift":
                "import Testing\nimport App\n@Test func fourIsFour() { #expect(four() == 4) }\n",
        ]
        for (path, text) in files {
            try FileManager.default.createDirectory(
                atPath: (base + "/" + path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: base + "/" + path, atomically: true, encoding: .utf8)
        }
        for git in [
            ["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one"],
            ["tag", "1.0.0"],
        ] {
            _ = try run("/usr/bin/git", ["-C", base + "/remote"] + git, check: true)
        }
        _ = try run("/usr/bin/env", ["swift", "build", "--build-tests", "--package-path", base + "/app"], check: true)
        let first = try run(Paths.trail, ["test", "--package", base + "/app"])
        #expect(first.status == 0, "\(first.stderr.suffix(2000))")

        // Package.resolved moves to 1.1.0 (a pull, say) before the package resolves again: the copy builds
        // against 1.1.0, not the 1.0.0 its seeded repositories hold.
        try
            "public func twice(_ value: Int) -> Int { value * 2 }\npublic func thrice(_ value: Int) -> Int { value * 3 }\n"
            .write(toFile: base + "/remote/Sources/Remote/Remote.swift", atomically: true, encoding: .utf8)
        for git in [["commit", "-qam", "two"], ["tag", "1.1.0"]] {
            _ = try run(
                "/usr/bin/git", ["-C", base + "/remote", "-c", "user.name=t", "-c", "user.email=t@t"] + git, check: true
            )
        }
        let revision = try run("/usr/bin/git", ["-C", base + "/remote", "rev-parse", "HEAD"], check: true).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let pins = base + "/app/Package.resolved"
        let oldRevision = try run("/usr/bin/git", ["-C", base + "/remote", "rev-parse", "1.0.0"], check: true).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try String(contentsOfFile: pins, encoding: .utf8).replacingOccurrences(of: "\"1.0.0\"", with: "\"1.1.0\"")
            .replacingOccurrences(of: oldRevision, with: revision).write(
                toFile: pins, atomically: true, encoding: .utf8)
        try "import Remote\npublic func four() -> Int { thrice(2) - 2 }\n"
            .write(toFile: base + "/app/Sources/App/App.swift", atomically: true, encoding: .utf8)
        let pulled = try run(Paths.trail, ["test", "--package", base + "/app"])
        #expect(pulled.status == 0, "\(pulled.stdout.suffix(1500))\n\(pulled.stderr.suffix(2000))")
        #expect(pulled.stdout.contains("== trail test: 1 passed, 0 failed"), "\(pulled.stdout.suffix(2000))")

        // Resolved once more by the package itself, then traced with the remote gone.
        _ = try run("/usr/bin/env", ["swift", "build", "--build-tests", "--package-path", base + "/app"], check: true)
        try FileManager.default.moveItem(atPath: base + "/remote", toPath: base + "/remote-gone")
        let test = try run(Paths.trail, ["test", "--package", base + "/app"])
        #expect(test.status == 0, "\(test.stderr.suffix(2000))")
        #expect(test.stdout.contains("== trail test: 1 passed, 0 failed"), "\(test.stdout.suffix(2000))")
        #expect(test.stdout.contains("App.four()"))
        #expect(!test.stderr.contains("Fetching") && !test.stderr.contains("Updating"), "\(test.stderr.suffix(2000))")
    }
}
