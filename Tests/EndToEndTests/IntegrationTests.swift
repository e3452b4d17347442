import Foundation
import Testing
import TrailTestSupport

/// swift-log flows into Trail: the Server Sample's library logs through swift-log only, and its lines land in
/// Trail's file beside the application's, with the traced call's ids, under load and beside a crash. A package
/// that uses Trail alone resolves none of the integrations' dependencies.
@Suite(.serialized) struct IntegrationTests {
    /// Where the copies of swift-log and friends are (Scripts/offline-packages.sh), as `make` finds them.
    static var offlinePackages: String {
        if let given = ProcessInfo.processInfo.environment["TRAIL_OFFLINE_PACKAGES"], !given.isEmpty { return given }
        return ((Paths.packageRoot + "/../shared/packages") as NSString).standardizingPath
    }

    /// The Server Sample copied, with mirrors to the local copies of swift-log, built traced.
    static func server() throws -> SampleCopy {
        let sample = try SampleCopy("Server")
        // Without the copies, SwiftPM fetches swift-log from its URL (and says so if it cannot).
        if FileManager.default.fileExists(atPath: offlinePackages) {
            try run(
                "/bin/bash",
                [
                    Paths.packageRoot + "/Scripts/offline-packages.sh", offlinePackages,
                    Paths.packageRoot + "/.build/offline-packages", sample.directory,
                ], check: true)
        }
        try sample.build(scratch: "trail", traced: true)
        return sample
    }

    static func lines(inLogsOf directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".log") }.sorted()
            .flatMap {
                try String(contentsOfFile: directory + "/" + $0, encoding: .utf8).split(separator: "\n").map(
                    String.init)
            }
    }

    @Test func aPackageThatUsesTrailAloneResolvesNothingOfTheIntegrations() throws {
        let base = Paths.temporaryDirectory("trail-only")
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base + "/Sources/App", withIntermediateDirectories: true)
        try """
        // swift-tools-version:6.1
        import PackageDescription
        let package = Package(name: "App", dependencies: [.package(name: "swift-trail", path: \(String(reflecting: Paths.packageRoot)))],
                              targets: [.executableTarget(name: "App", dependencies: [.product(name: "Trail", package: "swift-trail")])])
        """.write(toFile: base + "/Package.swift", atomically: true, encoding: .utf8)
        try "import Trail\nLogger(label: \"app\").info(\"hello\")\n".write(
            toFile: base + "/Sources/App/main.swift", atomically: true, encoding: .utf8)
        // No mirror here: a fetch of swift-log or swift-distributed-tracing would fail, as it would with no network.
        let resolved = try run(
            "swift", ["package", "--package-path", base, "--scratch-path", base + "/.build", "resolve"])
        #expect(resolved.status == 0, "\(resolved.stderr)")
        let integrations = ["swift-log", "swift-distributed-tracing", "swift-service-context"]
        #expect(
            !integrations.contains { (resolved.stdout + resolved.stderr).contains($0) },
            "\(resolved.stdout)\n\(resolved.stderr)")
        let described = try run(
            "swift", ["package", "--package-path", base, "--scratch-path", base + "/.build", "show-dependencies"],
            check: true)
        #expect(!integrations.contains { described.stdout.contains($0) }, "\(described.stdout)")
    }

    /// The same swift-log calls type-check against swift-log and, with the import changed, against Trail.
    @Test func swiftLogCallShapesCompileAgainstTrail() throws {
        let sample = try Self.server()
        let directory = Paths.temporaryDirectory("call-shapes")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let shapes = try String(contentsOfFile: Paths.fixture("LogCallShapes/Shapes.swift"), encoding: .utf8)
        try shapes.write(toFile: directory + "/Logging.swift", atomically: true, encoding: .utf8)
        try shapes.replacingOccurrences(of: "\nimport Logging\n", with: "\nimport Trail\n")
            .write(toFile: directory + "/Trail.swift", atomically: true, encoding: .utf8)
        let logging = try run(
            "swiftc",
            [
                "-typecheck", directory + "/Logging.swift", "-module-name", "Shapes", "-warnings-as-errors",
                "-I", sample.products(scratch: "trail") + "/Modules",
            ])
        #expect(logging.status == 0, "against swift-log: \(logging.stderr)")
        let trail = try run(
            "swiftc",
            [
                "-typecheck", directory + "/Trail.swift", "-module-name", "Shapes", "-warnings-as-errors",
                "-I", Paths.buildDirectory + "/Modules", "-I", Paths.packageRoot + "/Sources/CTrailHooks/include",
            ])
        #expect(trail.status == 0, "against Trail: \(trail.stderr)")
    }

    /// One run of the demo: the library's swift-log lines and the application's Trail lines in one JSON file,
    /// with the traced call's ids and swift-log's metadata and source.
    @Test func libraryLinesReachTrailsFileWithTraceIDs() throws {
        let sample = try Self.server()
        let logs = Paths.temporaryDirectory("server-logs")
        let traces = Paths.temporaryDirectory("server-traces")
        defer {
            try? FileManager.default.removeItem(atPath: logs)
            try? FileManager.default.removeItem(atPath: traces)
        }
        let demo = try run(
            sample.products(scratch: "trail") + "/Server", ["--log-dir", logs, "demo"],
            environment: [
                "TRAIL_LOG_FORMAT": "json", "TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": traces + "/%p.trace",
            ],
            check: true)
        #expect(demo.stdout.contains("GET /items/7: 200 item 7: 430 cents"), "\(demo.stdout)")
        let lines = try Self.lines(inLogsOf: logs)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: logs).filter { $0.hasSuffix(".log") } == ["server.log"])
        let objects = try lines.map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "\($0)")
        }
        func line(_ label: String, _ message: String) -> [String: Any]? {
            objects.first { $0["label"] as? String == label && $0["message"] as? String == message }
        }
        // The library's line inside its traced serve(): swift-log's metadata, its module, the span's ids.
        let sent = try #require(line("MiniHTTP.server", "response sent"), "\(lines.joined(separator: "\n"))")
        let metadata = try #require(sent["metadata"] as? [String: Any])
        #expect(metadata["status"] as? String == "200" && metadata["connection"] != nil && metadata["request"] != nil)
        #expect(metadata["service"] as? String == "server", "the metadata provider's key: \(metadata)")
        let source = try #require(sent["source"] as? [String: Any])
        #expect(source["module"] as? String == "MiniHTTP")
        #expect((source["file"] as? String)?.hasSuffix("HTTPServer.swift") == true)
        #expect((sent["trace_id"] as? String)?.count == 32 && (sent["span_id"] as? String)?.count == 16)
        // The application's own Trail line, in the same file, from a call in the same process: inside the
        // request's span, whose parent is the client's, so in the client's trace (TracingTests has the spans).
        let quoted = try #require(line("app.routes", "quoted"))
        #expect(quoted["pid"] as? Int == sent["pid"] as? Int)
        let received = try #require(
            line("MiniHTTP.client", "response received"), "the client's lines, from the other process")
        #expect(received["pid"] as? Int != sent["pid"] as? Int)
        #expect(quoted["trace_id"] as? String == received["trace_id"] as? String)
        // The demo started the server itself (Foundation's Process), so the server's process joined its trace too.
        #expect(sent["trace_id"] as? String == received["trace_id"] as? String)
    }

    /// 100,000 swift-log lines from 8 threads: every one in Trail's files, once.
    @Test func noLibraryLineIsLostUnderLoad() throws {
        let sample = try Self.server()
        let logs = Paths.temporaryDirectory("flood-logs")
        defer { try? FileManager.default.removeItem(atPath: logs) }
        let flood = try run(
            sample.products(scratch: "trail") + "/Server", ["--log-dir", logs, "flood", "8", "12500"],
            environment: ["TRAIL_LOG_MAX_SIZE": "4M", "TRAIL_LOG_MAX_FILES": "0", "TRAIL_LOG_MAX_TOTAL": "0"],
            check: true)
        #expect(flood.stdout.contains("wrote 100000 lines from 8 threads"))
        var seen = [Bool](repeating: false, count: 100_000)
        var doubled = 0
        var count = 0
        for line in try Self.lines(inLogsOf: logs) where line.contains(" info flood: line ") {
            guard let range = line.range(of: " n="), let n = Int(line[range.upperBound...].prefix { $0.isNumber }),
                n < seen.count
            else { continue }
            count += 1
            if seen[n] { doubled += 1 }
            seen[n] = true
        }
        #expect(
            count == 100_000 && doubled == 0 && !seen.contains(false),
            "\(count) lines, \(doubled) doubled, \(seen.filter { !$0 }.count) missing")
    }

    /// A crash in a handler: its block follows the library's last lines, and the crash report shows them.
    @Test func aHandlerCrashHasTheLibrarysLastLinesBesideIt() throws {
        let sample = try Self.server()
        let logs = Paths.temporaryDirectory("crash-logs")
        defer { try? FileManager.default.removeItem(atPath: logs) }
        let binary = sample.products(scratch: "trail") + "/Server"
        let server = Process()
        server.executableURL = URL(fileURLWithPath: binary)
        server.arguments = ["--log-dir", logs, "serve"]
        let output = Pipe()
        server.standardOutput = output
        try server.run()
        // Whatever fails below, the server does not outlive the test.
        defer {
            if server.isRunning {
                kill(server.processIdentifier, SIGKILL)
                server.waitUntilExit()
            }
        }
        var head = Data()
        while !head.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            head.append(chunk)
        }
        let port = try #require(
            String(decoding: head, as: UTF8.self).split(separator: " ").last
                .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) },
            "\(String(decoding: head, as: UTF8.self))")
        // The client logs elsewhere: the report below is the server's crash.
        let clientLogs = logs + "/client"
        _ = try run(binary, ["--log-dir", clientLogs, "get", "--port", "\(port)", "/items/3"], check: true)
        let crashed = try run(binary, ["--log-dir", clientLogs, "get", "--port", "\(port)", "/crash"])
        #expect(
            crashed.status == 1 && crashed.stdout.contains("GET /crash failed: malformed response"), "\(crashed.stdout)"
        )
        let deadline = Date().addingTimeInterval(30)
        while server.isRunning, Date() < deadline { usleep(20_000) }
        try #require(!server.isRunning, "the server did not crash on GET /crash")
        #expect(server.terminationReason == .uncaughtSignal)
        let text = try Self.lines(inLogsOf: logs).joined(separator: "\n")
        let block = try #require(text.range(of: "=== TRAIL CRASH BEGIN"), "\(text.suffix(3000))")
        let before = text[..<block.lowerBound]
        #expect(
            before.contains(
                "info MiniHTTP.server: response sent bytes=17 connection=1 request=GET /items/3 service=server status=200"
            ), "\(before.suffix(2000))")
        #expect(before.contains("error app.routes: about to read a shelf that does not exist"))
        let report = try run(Paths.trail, ["report", "--crash", logs], check: true)
        #expect(report.stdout.contains("MiniHTTP.server: response sent"), "\(report.stdout.prefix(4000))")
        #expect(report.stdout.contains("static Inventory.crash() at"), "\(report.stdout.prefix(4000))")
    }
}
