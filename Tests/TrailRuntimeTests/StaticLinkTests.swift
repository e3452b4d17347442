import Foundation
import Testing
import TrailTestSupport

/// A traced program linked fully static (`swiftc -static-executable`, as `swift build -Xswiftc
/// -static-executable` links) has no dynamic loader to find libc's pthread_create, posix_spawn and exec behind
/// Trail's: they must still work, tracing or not, and so must a `-static-stdlib` link.
@Suite struct StaticLinkTests {
    /// Tests/Fixtures/StaticProbe linked with the runtime's objects, once per link kind; or why it was not.
    static func build(_ kind: String) -> (path: String?, failure: String) {
        let directory = Paths.temporaryDirectory("static-probe")
        let build = Paths.buildDirectory
        let objects = ["CTrailHooks", "CTrailShim", "TrailFormat", "Trail", "TrailExit"].flatMap(CProbe.objects(of:))
        let output = directory + "/static-probe"
        let arguments =
            [
                kind, "-o", output, "-I", build + "/Modules", "-I", Paths.packageRoot + "/Sources/CTrailHooks/include",
                Paths.fixture("StaticProbe/main.swift"),
            ] + objects
        do {
            try run("swiftc", arguments, check: true)
            return (output, "")
        } catch {
            return (nil, "\(error)")
        }
    }

    static let executable = build("-static-executable")
    static let staticStdlib = build("-static-stdlib")

    /// How a run traces: not at all, a line per call, recording, and either with Trail.bootstrap logging.
    enum Tracing: String, CaseIterable {
        case off, log, record, bootstrapped, recordBootstrapped
    }

    @Test(arguments: ["-static-executable", "-static-stdlib"], Tracing.allCases)
    func threadsSpawnAndExecWork(link: String, tracing: Tracing) throws {
        let built = link == "-static-executable" ? Self.executable : Self.staticStdlib
        let probe = try #require(built.path, "\(built.failure)")
        let directory = Paths.temporaryDirectory("static-run")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var environment: [String: String] = [:]
        switch tracing {
        case .off, .bootstrapped: break
        case .log: environment["TRAIL_TRACE"] = "1"
        case .record, .recordBootstrapped:
            environment = ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": directory + "/traces/%p.trace"]
        }
        let bootstrapped = tracing == .bootstrapped || tracing == .recordBootstrapped
        let result = try run(probe, bootstrapped ? [directory + "/logs"] : [], environment: environment)
        #expect(result.shellStatus == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("trail: cannot start"), "\(result.stderr)")
        // A child names the call that started it whenever a call is traced.
        let context = tracing == .off || tracing == .bootstrapped ? "none" : "00-"
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 6, "\(result.stdout)")
        guard lines.count == 6 else { return }
        #expect(lines[0] == "thread 0")
        #expect(lines[1].hasPrefix("spawned " + context) && lines[2] == "posix_spawn 0 status 0")
        #expect(lines[3].hasPrefix("system " + context) && lines[4] == "system 2")
        #expect(lines[5].hasPrefix("exec " + context), "exec replaced the program")
        if tracing == .record {
            let traces = try FileManager.default.contentsOfDirectory(atPath: directory + "/traces")
            #expect(traces.count == 1, "\(traces)")
            let dump = try TraceDump(path: directory + "/traces/" + (try #require(traces.first)))
            // The thread's call, and the entry of the call that exec ended.
            #expect(dump.problems.isEmpty && dump.recordCount == 3 && dump.end != nil, "\(dump.problems)")
        }
        if bootstrapped {
            let log = try String(contentsOfFile: directory + "/logs/static.log", encoding: .utf8)
            #expect(log.contains("info static: bootstrapped"), "\(log)")
        }
    }
}
