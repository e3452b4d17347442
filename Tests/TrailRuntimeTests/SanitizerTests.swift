import Foundation
import Testing
import TrailTestSupport

/// A traced program built with ThreadSanitizer or AddressSanitizer (`swift test --sanitize=thread`, which server
/// packages run in CI) runs as its untraced build does. Trail's pthread_create, posix_spawn and the rest replaced TSan's interceptors
/// of the same names and called libc's: TSan never saw the threads start and crashed at their first event. The
/// runtime's own C is built with TSan here as SwiftPM builds it: a ring reused or added while the writer looked
/// at it was a data race TSan reported, which fails the suite. Under ASan the runtime's C must show no memory error.
@Suite struct SanitizerTests {
    /// Tests/Fixtures/StaticProbe with `-sanitize=NAME`, linked with CTrailShim compiled with `-fsanitize=NAME`
    /// and the rest of the runtime as built; or why it was not built.
    static func build(_ sanitizer: String) -> (path: String?, failure: String) {
        let directory = Paths.temporaryDirectory("\(sanitizer)-probe")
        let sources = Paths.packageRoot + "/Sources"
        do {
            let shim = try FileManager.default.contentsOfDirectory(atPath: sources + "/CTrailShim")
                .filter { $0.hasSuffix(".c") }.sorted()
            var objects: [String] = []
            for file in shim {
                let object = directory + "/" + file + ".o"
                try run(
                    Paths.toolchainUsr + "/bin/clang",
                    [
                        "-c", "-O1", "-g", "-fsanitize=" + sanitizer, "-DSWIFT_PACKAGE=1", "-I",
                        sources + "/CTrailHooks/include",
                        "-I", sources + "/CTrailShim/include", "-o", object, sources + "/CTrailShim/" + file,
                    ], check: true)
                objects.append(object)
            }
            let runtime = ["CTrailHooks", "TrailFormat", "Trail", "TrailExit"].flatMap(CProbe.objects(of:))
            let output = directory + "/probe"
            try run(
                "swiftc",
                [
                    "-sanitize=" + sanitizer, "-o", output, "-I", Paths.buildDirectory + "/Modules", "-I",
                    sources + "/CTrailHooks/include", Paths.fixture("StaticProbe/main.swift"),
                ] + objects + runtime, check: true)
            return (output, "")
        } catch {
            return (nil, "\(error)")
        }
    }

    static let probes = ["thread": build("thread"), "address": build("address")]

    @Test(arguments: ["thread", "address"], ["off", "log", "record"])
    func aSanitizedProgramRunsTraced(sanitizer: String, mode: String) throws {
        let built = try #require(Self.probes[sanitizer])
        let probe = try #require(built.path, "\(built.failure)")
        let directory = Paths.temporaryDirectory("\(sanitizer)-run")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var environment = ["TSAN_OPTIONS": "halt_on_error=1"]
        if mode != "off" { environment["TRAIL_TRACE"] = mode }
        if mode == "record" { environment["TRAIL_TRACE_FILE"] = directory + "/%p.trace" }
        let result = try run("/usr/bin/timeout", ["-s", "KILL", "60", probe], environment: environment)
        #expect(result.shellStatus == 0, "\(result.stderr.suffix(3000))")
        #expect(!result.stderr.contains("Sanitizer"), "\(result.stderr.suffix(3000))")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first == "thread 0" && lines.count == 6, "\(result.stdout)")
        if mode == "record" {
            let traces = try FileManager.default.contentsOfDirectory(atPath: directory)
            #expect(traces.count == 1, "\(traces)")
        }
    }
}

extension SanitizerTests {
    /// ASan keeps its own SEGV handler in place of Trail's and ends the process after its report: the logger's
    /// buffered lines went with it (the log held the report alone), and so did the trace's last records. Its
    /// death callback writes them first.
    @Test(arguments: ["log", "record"])
    func whatAnAddressSanitizerReportEndsIsWritten(mode: String) throws {
        let probe = try #require(Self.probes["address"]?.path, "\(Self.probes["address"]?.failure ?? "")")
        let directory = Paths.temporaryDirectory("asan-crash")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var environment = ["STATIC_PROBE_CRASH": "1", "TRAIL_TRACE": mode]
        if mode == "record" { environment["TRAIL_TRACE_FILE"] = directory + "/traces/%p.trace" }
        let result = try run(
            "/usr/bin/timeout", ["-s", "KILL", "60", probe, directory + "/logs"], environment: environment)
        #expect(result.shellStatus == 1, "\(result.stderr.suffix(2000))")
        let log = try String(contentsOfFile: directory + "/logs/static.log", encoding: .utf8)
        #expect(log.contains("ERROR: AddressSanitizer: SEGV"), "\(log.suffix(2000))")
        #expect(log.contains("info static: bootstrapped"), "\(log.prefix(2000))")
        if mode == "record" {
            let traces = try FileManager.default.contentsOfDirectory(atPath: directory + "/traces")
            let dump = try TraceDump(path: directory + "/traces/" + (try #require(traces.first)))
            #expect(dump.problems.isEmpty && dump.recordCount > 0, "\(dump.problems)")
        }
    }
}
