import Foundation
import Testing
import TrailTestSupport

/// The crash matrix: every way CrashLab dies, in a traced debug build and a traced `-c release -Xswiftc -g`
/// build, with the Swift backtracer on and off. Each must die of the right signal, leave a crash block that
/// `trail symbolize` turns into a stack naming the crash site's function and line, and show the calls that
/// led there.
@Suite(.serialized) struct CrashLabTests {
    static let sample = try! SampleCopy("CrashLab")
    static let debug: String = {
        try! sample.build(scratch: "trail", traced: true)
        return sample.products(scratch: "trail") + "/CrashLab"
    }()
    static let release: String = {
        try! sample.build(
            scratch: "release-g", traced: true, configuration: "release", extra: ["-Xswiftc", "-g"],
            environment: ["TRAIL_RELEASE": "1"])
        return sample.products(scratch: "release-g", configuration: "release") + "/CrashLab"
    }()

    /// The `// crash site: <kind>` line of each kind in the Sample's source.
    static let sites: [String: Int] = {
        let source = Transcript.read(sample.directory + "/Sources/CrashLab/Crashes.swift")
        var sites: [String: Int] = [:]
        for (index, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if let range = line.range(of: "// crash site: ") { sites[String(line[range.upperBound...])] = index + 1 }
        }
        return sites
    }()

    struct Kind: Sendable, CustomStringConvertible {
        var name: String
        var signal: Int32
        /// Part of the crash site's function name, as the symbolized stack shows it.
        var function: String
        /// The `// crash site:` marker it dies at.
        var site: String? = nil
        var description: String { name }
    }

    static let kinds: [Kind] = [
        Kind(name: "nil", signal: 4, function: "nilUnwrap"),
        Kind(name: "fatal", signal: 4, function: "Crashes.fatal"),
        Kind(name: "precondition", signal: 4, function: "checkedWithdrawal"),
        Kind(name: "bounds", signal: 4, function: "outOfBounds"),
        Kind(name: "pointer", signal: 11, function: "badPointer"),
        Kind(name: "overflow", signal: 11, function: "recurse"),
        Kind(name: "abort", signal: 6, function: "abortNow"),
        Kind(name: "throw", signal: 4, function: "main"),
        Kind(name: "thread", signal: 11, function: "badPointer", site: "pointer"),
    ]

    /// Runs one crash and returns the symbolized JSON of its block.
    func crash(_ binary: String, _ kind: Kind, backtracer: Bool) throws -> (json: [String: Any], log: String) {
        let directory = Paths.temporaryDirectory("crash-\(kind.name)")
        let result = try run(
            binary, ["--log-dir", directory, kind.name],
            environment: [
                "TRAIL_TRACE": "record", "SWIFT_BACKTRACE": backtracer ? "enable=yes,interactive=no" : "enable=no",
            ])
        #expect(result.shellStatus == 128 + kind.signal, "\(kind.name): exit \(result.shellStatus)")
        let log = directory + "/CrashLab.log"
        let symbolized = try run(Paths.trail, ["symbolize", "--format", "json", log], check: true)
        let crashes = try JSONSerialization.jsonObject(with: Data(symbolized.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(crashes.count == 1, "\(kind.name): one crash block")
        return (crashes.first ?? [:], Transcript.read(log))
    }

    static func frames(_ crash: [String: Any]) -> [[String: Any]] {
        ((crash["threads"] as? [[String: Any]])?.first?["frames"] as? [[String: Any]]) ?? []
    }

    func check(_ binary: String, _ kind: Kind, backtracer: Bool, build: String) throws {
        let (crash, log) = try crash(binary, kind, backtracer: backtracer)
        let context = "\(kind.name) (\(build), backtracer \(backtracer ? "on" : "off"))"
        let frames = Self.frames(crash)
        let named = frames.filter { ($0["description"] as? String ?? "").contains(kind.function) }
        #expect(!named.isEmpty, "\(context): no frame names \(kind.function)")
        let crumbs = (crash["breadcrumbs"] as? [[String: Any]] ?? []).compactMap { $0["site"] as? String }
        if kind.name == "throw" {
            // The error leaves main through the runtime; the throwing call is in the breadcrumbs, the message in the log.
            #expect(crumbs.contains { $0.contains("Ledger.withdraw(_:from:)") }, "\(context): \(crumbs)")
            #expect(log.contains("Fatal error: Error raised at top level"), "\(context)")
            return
        }
        let line = Self.sites[kind.site ?? kind.name]!
        let atSite = frames.contains { frame in
            guard let location = frame["sourceLocation"] as? [String: Any] else { return false }
            return (location["file"] as? String ?? "").hasSuffix("CrashLab/Crashes.swift")
                && location["line"] as? Int == line
        }
        #expect(
            atSite,
            "\(context): no frame at Crashes.swift:\(line); frames: \(frames.prefix(8).map { "\($0["description"] ?? "?") \($0["sourceLocation"] ?? "")" })"
        )
        #expect(crumbs.contains { $0.contains(kind.function) }, "\(context): breadcrumbs \(crumbs)")
        if kind.name == "thread" {
            #expect(((crash["threads"] as? [[String: Any]])?.first?["name"] as? String) == "crashlab-worker")
        }
        if backtracer {
            #expect(
                log.contains("*** Signal \(kind.signal): Backtracing from"),
                "\(context): the Swift backtracer ran after trail's handler")
        }
    }

    @Test(arguments: kinds) func debugBuild(_ kind: Kind) throws {
        for backtracer in [true, false] { try check(Self.debug, kind, backtracer: backtracer, build: "debug") }
    }

    @Test(arguments: kinds) func releaseBuildWithDebugInfo(_ kind: Kind) throws {
        for backtracer in [true, false] { try check(Self.release, kind, backtracer: backtracer, build: "release -g") }
    }

    /// A crashed process's trace as OTLP spans: the calls it died in end with an `exception` event carrying the
    /// signal and the symbolized stack, found in the crash block of the log beside the trace.
    @Test func aCrashBecomesAnExceptionEventOnTheSpansItInterrupted() throws {
        let directory = Paths.temporaryDirectory("otlp-crash")
        let crashed = try run(
            Self.debug, ["--log-dir", directory, "pointer"],
            environment: ["TRAIL_TRACE": "record", "SWIFT_BACKTRACE": "enable=no"])
        #expect(crashed.signal == 11)
        let requests = directory + "/spans.json"
        let export = try run(Paths.trail, ["export", "--otlp", "-o", requests, directory], check: true)
        #expect(export.stderr.contains("1 crashed"), "\(export.stderr)")
        let check = try otlpCheck("traces", requests)
        #expect(check.hasPrefix("ok=1 requests=1 resources=1") && check.hasSuffix("orphans=0 outliving=0"), "\(check)")
        let text = Transcript.read(requests)
        let request = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        let spans = (request?["resourceSpans"] as? [[String: Any]] ?? []).flatMap {
            ($0["scopeSpans"] as? [[String: Any]] ?? []).flatMap { $0["spans"] as? [[String: Any]] ?? [] }
        }
        let interrupted = spans.filter {
            ($0["events"] as? [[String: Any]])?.contains { $0["name"] as? String == "exception" } == true
        }
        #expect(interrupted.map { $0["name"] as? String ?? "" }.contains { $0.contains("Crashes.badPointer") })
        let event = (interrupted.first?["events"] as? [[String: Any]])?.first
        let attributes = Dictionary(
            uniqueKeysWithValues: (event?["attributes"] as? [[String: Any]] ?? []).map {
                ($0["key"] as? String ?? "", ($0["value"] as? [String: Any])?["stringValue"] as? String ?? "")
            })
        #expect(attributes["exception.type"] == "SIGSEGV")
        #expect(
            attributes["exception.stacktrace"]?.contains("Crashes.swift:\(Self.sites["pointer"]!)") == true,
            "\(attributes)")
        #expect(interrupted.allSatisfy { ($0["status"] as? [String: Any])?["code"] as? Int == 2 })
        // The resource names the app as Trail.bootstrap was told (CrashLab 1.0).
        let resource = (request?["resourceSpans"] as? [[String: Any]])?.first?["resource"] as? [String: Any]
        let resourceAttributes = Dictionary(
            uniqueKeysWithValues: (resource?["attributes"] as? [[String: Any]] ?? []).map {
                ($0["key"] as? String ?? "", ($0["value"] as? [String: Any])?["stringValue"] as? String ?? "")
            })
        #expect(
            resourceAttributes["service.name"] == "CrashLab" && resourceAttributes["service.version"] == "1.0",
            "\(resourceAttributes)")
    }

    @Test func nextLaunchFindsThePreviousCrashAndReportsIt() throws {
        let home = Paths.temporaryDirectory("home")
        let directory = home + "/logs"
        let crashed = try run(
            Self.debug, ["--log-dir", directory, "pointer"],
            environment: ["TRAIL_TRACE": "record", "SWIFT_BACKTRACE": "enable=no"])
        #expect(crashed.signal == 11)
        let next = try run(Self.debug, ["--log-dir", directory, "ok"], check: true)
        #expect(next.stdout.contains("We're sorry: CrashLab crashed last time (SIGSEGV"))
        #expect(next.stdout.contains("CrashLab.1.log"))
        // Acknowledged: the launch after that is a normal one.
        #expect(!(try run(Self.debug, ["--log-dir", directory, "ok"], check: true)).stdout.contains("sorry"))

        let report = try run(Paths.trail, ["report", "--crash", directory], environment: ["HOME": home], check: true)
        for text in [
            "# Crash report: CrashLab 1.0", "**SIGSEGV (SEGV_MAPERR) at 0x8**", "Build ID",
            "static Crashes.badPointer(_:)",
            "Crashes.swift:\(Self.sites["pointer"]!)", "## Last traced calls", "## Log before the crash",
            "info CrashLab: running pointer", "Debian",
        ] {
            #expect(report.stdout.contains(text), "report lacks \(text)")
        }
        // Two launches since the crash: its log keeps the name the first gave it, found by its crash block.
        #expect(report.stdout.contains("~/logs/CrashLab.1.log"), "the home folder is masked")
        #expect(!report.stdout.contains(home))
        let raw = try run(
            Paths.trail, ["report", "--crash", "--no-sanitize", directory], environment: ["HOME": home], check: true)
        #expect(raw.stdout.contains(home))
        let json = try run(Paths.trail, ["report", "--crash", "--json", directory], check: true)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect((object?["logTail"] as? [String])?.contains { $0.contains("running pointer") } == true)
        #expect(((object?["crash"] as? [String: Any])?["signal"] as? [String: Any])?["name"] as? String == "SIGSEGV")
    }

    @Test func reportedErrorsLogAStackAndFatalOnesEndTheProcess() throws {
        let directory = Paths.temporaryDirectory("report")
        let reported = try run(Self.debug, ["--log-dir", directory, "report"], check: true)
        #expect(reported.stdout.contains("reported, still running"))
        let symbolized = try run(Paths.trail, ["symbolize", directory + "/CrashLab.log"], check: true)
        #expect(symbolized.stdout.contains("Error 1 of 1"))
        #expect(symbolized.stdout.contains("Overdraft: overdraft of 30 (paying the rent)"))
        #expect(symbolized.stdout.contains("CrashLab_main"))
        #expect(
            !FileManager.default.fileExists(atPath: directory + "/CrashLab.crash"), "a non-fatal report is no crash")

        let fatal = try run(Self.debug, ["--log-dir", directory, "fatal-report"])
        #expect(fatal.status == 70)
        #expect(FileManager.default.fileExists(atPath: directory + "/CrashLab.crash"))
        let next = try run(Self.debug, ["--log-dir", directory, "ok"], check: true)
        #expect(next.stdout.contains("We're sorry: CrashLab crashed last time (fatal error"))
    }
}
