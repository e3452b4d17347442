import Foundation
import TrailTestSupport

/// The package `TrailTestVerbTests` traces: XCTest and Swift Testing tests side by side, a fixture found by
/// `#filePath`, a resource, tests that fail or sleep only when an environment variable says so, a warning the
/// compiler prints with its path, and a versioned manifest (the one Swift 6 picks) whose targets and dependencies
/// are made by code.
enum TrailTestPackage {
    static let files: [String: String] = [
        "Package.swift": """
        // swift-tools-version:5.9
        import PackageDescription
        let package = Package(
            name: "Mixed",
            targets: [
                .target(name: "Calc", resources: [.copy("Resources/greeting.txt")]),
                .testTarget(name: "CalcTests", dependencies: ["Calc"], exclude: ["Fixtures"]),
            ]
        )

        """,
        "Package@swift-6.0.swift": """
        // swift-tools-version:6.0
        import PackageDescription
        let targets: [Target] = [
            .target(name: "Calc", resources: [.copy("Resources/greeting.txt")], swiftSettings: [.define("VERSIONED")]),
            .testTarget(name: "CalcTests", dependencies: ["Calc"], exclude: ["Fixtures"]),
        ]
        let dependencies: [Package.Dependency] = []
        let package = Package(name: "Mixed", dependencies: dependencies, targets: targets)

        """,
        "Sources/Calc/Calc.swift": """
        import Foundation

        public func add(_ a: Int, _ b: Int) -> Int { a + b }
        public func double(_ a: Int) -> Int {
            let unused = 1
            return add(a, a)
        }
        public func greeting() -> String {
            let url = Bundle.module.url(forResource: "greeting", withExtension: "txt")!
            return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        }
        #if VERSIONED
        public let manifest = "versioned"
        #else
        public let manifest = "plain"
        #endif

        """,
        "Sources/Calc/Resources/greeting.txt": "hello\n",
        "Tests/CalcTests/Fixtures/answer.txt": "42\n",
        "Tests/CalcTests/CalcXCTests.swift": """
        import Foundation
        import XCTest
        @testable import Calc

        let failing = ProcessInfo.processInfo.environment["MIXED_FAIL"] == "1"

        final class CalcXCTests: XCTestCase {
            func testAdd() { XCTAssertEqual(add(1, 2), 3) }
            func testDouble() { XCTAssertEqual(double(2), failing ? 5 : 4) }
            func testFixture() throws {
                let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                    .appendingPathComponent("Fixtures/answer.txt")
                XCTAssertEqual(try String(contentsOf: fixture, encoding: .utf8), "42\\n")
            }
        }

        """,
        "Tests/CalcTests/CalcSwiftTests.swift": """
        import Foundation
        import Testing
        @testable import Calc

        @Test func sum() { #expect(add(2, 2) == 4) }
        @Test func doubling() { #expect(double(3) == (failing ? 7 : 6)) }
        @Test func resource() { #expect(greeting() == "hello\\n") }
        @Test func versionedManifest() { #expect(manifest == "versioned") }
        @Test func slow() throws {
            if let seconds = ProcessInfo.processInfo.environment["MIXED_SLEEP"] { sleep(UInt32(seconds)!) }
        }

        """,
    ]

    static func make() throws -> String {
        let base = Paths.temporaryDirectory("trail-test-verb")
        for (path, text) in files {
            let full = base + "/mixed/" + path
            try FileManager.default.createDirectory(
                atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: full, atomically: true, encoding: .utf8)
        }
        return base
    }
}

/// A `trail` started in the background, its output in files, for a test to stop with a signal.
struct BackgroundTrail {
    let pid: pid_t
    let output: String

    init(_ arguments: [String], in folder: String, environment: [String: String] = [:]) throws {
        output = folder + "/background-\(UUID().uuidString.prefix(8)).log"
        var env = ProcessInfo.processInfo.environment
        for key in env.keys where key.hasPrefix("TRAIL_") { env[key] = nil }
        env["TMPDIR"] = Paths.childTemporaryDirectory
        env.merge(environment) { $1 }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv = ([Paths.trail] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, Paths.trail, &actions, &attributes, argv, envp)
        guard status == 0 else { throw CocoaError(.executableLoad) }
        self.pid = pid
    }

    /// The log so far (small: a few builds' lines).
    var log: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }

    /// Waits until the log holds `text`, at most `seconds`.
    func wait(for text: String, seconds: Double) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if log.contains(text) { return true }
            usleep(20_000)
        }
        return false
    }

    /// Waits for the exit, at most `seconds`; nil when it did not end, after which it is killed.
    func exitStatus(within seconds: Double) -> Int32? {
        let end = Date().addingTimeInterval(seconds)
        var status: Int32 = 0
        while Date() < end {
            if waitpid(pid, &status, WNOHANG) == pid {
                return (status & 0x7F) != 0 ? 128 + (status & 0x7F) : (status >> 8) & 0xFF
            }
            usleep(20_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
        return nil
    }
}
