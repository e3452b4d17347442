import Foundation
import Testing
import TrailTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Crashes under the conditions a real program dies in: while the logger rotates, and with the Swift runtime's
/// backtracer chained after Trail's handler.
@Suite struct CrashUnderLoadTests {
    /// Processes still running whose open files lie in `directory` (a backtracer left behind holds the log).
    func processesHolding(_ directory: String) -> [String] {
        let pids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).filter { Int($0) != nil }
        return pids.compactMap { pid in
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            let holds = fds.contains { fd in
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)"))?.hasPrefix(
                    directory) == true
            }
            guard holds else { return nil }
            return (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8))?.replacingOccurrences(
                of: "\0", with: " ")
        }
    }

    @Test func aCrashWhileTheLoggerRotatesIsFoundFiftyTimesWithItsReason() throws {
        let directory = Paths.temporaryDirectory("rotating-crash")
        var found = 0
        var reasons = 0
        var failures: [String] = []
        for round in 0 ..< 50 {
            let environment = ["TRAIL_LOG_MAX_SIZE": "4K", "SWIFT_BACKTRACE": "enable=no"]
            let crash = try run(
                RuntimeProbe.path, RuntimeProbe.arguments(.rotatingCrash, directory, 4, 20 + round % 5 * 10),
                environment: environment)
            #expect(crash.signal == 4, "round \(round): \(crash.stderr.suffix(300))")
            let next = try run(
                RuntimeProbe.path, RuntimeProbe.arguments(.previous, directory), environment: environment, check: true)
            if next.stdout.contains("previous: SIGILL") && next.stdout.contains("block whole") {
                found += 1
            } else {
                failures.append("round \(round) next launch: \(next.stdout)")
            }
            let report = try run(Paths.trail, ["report", "--crash", directory, "--no-sanitize"])
            if report.status == 0, report.stdout.contains("Fatal error: rotating crash") {
                reasons += 1
            } else {
                failures.append("round \(round) report: \(report.stderr) \(report.stdout.prefix(400))")
            }
        }
        #expect(found == 50 && reasons == 50, "\(failures.prefix(3))")
        try? FileManager.default.removeItem(atPath: directory)
    }

    @Test(arguments: [(CrashMethod.segv, Int32(11)), (.fatal, Int32(4))])
    func theChainedBacktracerCompletesAndLeavesNoProcess(method: CrashMethod, signal: Int32) throws {
        let directory = Paths.temporaryDirectory("chained-\(method)")
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.crash, directory, method, 100),
            environment: ["SWIFT_BACKTRACE": "enable=yes"])
        #expect(result.signal == signal, "\(result.stderr.suffix(500))")
        let log = Transcript.read(directory + "/probe.log")
        #expect(log.contains("=== TRAIL CRASH END ==="))
        // The backtracer's report, whole: its crash line, the registers and images, and its closing line.
        for part in ["*** Program crashed: ", "Registers:", "Images (", "Backtrace took "] {
            #expect(log.contains(part), "\(part) missing from the Swift backtracer's report")
        }
        var leftover = processesHolding(directory)
        for _ in 0 ..< 20 where !leftover.isEmpty {
            usleep(100_000)
            leftover = processesHolding(directory)
        }
        #expect(leftover.isEmpty, "\(leftover)")
    }

    @Test(arguments: [CrashMethod.dispatchOverflow, .foundationOverflow])
    func aStackOverflowOnAnyThreadLeavesABlock(method: CrashMethod) throws {
        for backtracer in ["enable=yes", "enable=no"] {
            let directory = Paths.temporaryDirectory(method.rawValue)
            let result = try run(
                RuntimeProbe.path, RuntimeProbe.arguments(.crash, directory, method, 10),
                environment: ["SWIFT_BACKTRACE": backtracer])
            #expect(result.signal == 11, "\(method) \(backtracer): \(result.stderr.suffix(300))")
            let log = Transcript.read(directory + "/probe.log")
            #expect(
                log.contains("=== TRAIL CRASH BEGIN v1 ===") && log.contains("=== TRAIL CRASH END ==="),
                "\(method) \(backtracer)")
            #expect(log.contains("signal: 11"), "\(method) \(backtracer)")
        }
    }

    /// Crashes the handler itself could trip on: threads crashing at once (the later wait for the first's block),
    /// a call through a bad pointer (the unwinder faults on the pc; the caller's frame still shows), an empty
    /// file mapped in the process (reading its header for the image map would be a SIGBUS).
    @Test(arguments: [CrashMethod.twoThreads, .badCall, .emptyMapping])
    func aCrashTheHandlerCouldTripOnStillLeavesABlock(method: CrashMethod) throws {
        // Two threads: while one writes the block, the others print their fatal errors to fd 2, which shared the
        // log descriptor's position, and the marker once pointed past the block (1 round in 20): 20 rounds.
        for round in 0 ..< (method == .twoThreads ? 20 : 1) {
            let directory = Paths.temporaryDirectory(method.rawValue)
            let result = try run(
                RuntimeProbe.path, RuntimeProbe.arguments(.crash, directory, method, 10),
                environment: ["SWIFT_BACKTRACE": "enable=no"])
            let signal: Int32 = method == .twoThreads ? 4 : 11
            #expect(result.signal == signal, "\(method) round \(round): \(result.stderr.suffix(300))")
            let log = Transcript.read(directory + "/probe.log")
            #expect(
                log.components(separatedBy: "=== TRAIL CRASH BEGIN v1 ===").count == 2,
                "\(method) round \(round): one block")
            #expect(log.contains("=== TRAIL CRASH END ==="), "\(method) round \(round)")
            let frames = log.split(separator: "\n").filter { $0.hasPrefix("frame ") }
            #expect(frames.count >= 2, "\(method): \(frames)")
            let next = try run(RuntimeProbe.path, RuntimeProbe.arguments(.previous, directory), check: true)
            #expect(
                next.stdout.contains(signal == 4 ? "previous: SIGILL" : "previous: SIGSEGV"),
                "\(method): \(next.stdout)")
        }
    }

    /// A FIFO and a link to /dev/zero planted in a log folder, named like rotated logs, are passed over: the
    /// readers neither wait on the FIFO nor read the device without end.
    @Test func plantedFilesInALogFolderAreSkipped() throws {
        let directory = Paths.temporaryDirectory("planted")
        let crash = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.crash, directory, CrashMethod.segv, 10),
            environment: ["SWIFT_BACKTRACE": "enable=no"])
        #expect(crash.signal == 11)
        #expect(mkfifo(directory + "/probe.9.log", 0o644) == 0)
        #expect(symlink("/dev/zero", directory + "/probe.7.log") == 0)
        let report = try run("/usr/bin/timeout", ["60", Paths.trail, "report", "--crash", directory, "--no-sanitize"])
        #expect(report.status == 0, "\(report.stderr)")
        #expect(report.stdout.contains("SIGSEGV"), "\(report.stdout.prefix(400))")
        let records = directory + "/records.json"
        let export = try run(
            "/usr/bin/timeout", ["60", Paths.trail, "export", "--otlp-logs", "-o", records, directory])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(Transcript.read(records).contains("before crash 9"))
    }

    /// Threads reporting errors at once each get a whole block: they share one buffer.
    @Test func errorsReportedFromManyThreadsAreWhole() throws {
        let directory = Paths.temporaryDirectory("report-race")
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.reportRace, directory, 4, 100),
            environment: ["SWIFT_BACKTRACE": "enable=no"])
        #expect(result.status == 0 && result.stdout == "reported\n", "\(result.stderr.suffix(300))")
        let lines = Transcript.read(directory + "/probe.log").split(separator: "\n")
        #expect(lines.filter { $0 == "=== TRAIL ERROR BEGIN v1 ===" }.count == 400)
        #expect(lines.filter { $0 == "=== TRAIL ERROR END ===" }.count == 400)
        // Each block ends before the next begins.
        var open = false
        var interleaved = 0
        for line in lines {
            if line == "=== TRAIL ERROR BEGIN v1 ===" {
                if open { interleaved += 1 }
                open = true
            }
            if line == "=== TRAIL ERROR END ===" { open = false }
        }
        #expect(interleaved == 0)
    }

    @Test func aLibraryOpenedByARelativePathIsRecordedWithItsAbsolutePath() throws {
        let work = Paths.temporaryDirectory("relative")
        try FileManager.default.createDirectory(atPath: work + "/plug", withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: URL(fileURLWithPath: "/lib/x86_64-linux-gnu/libz.so.1").resolvingSymlinksInPath().path,
            toPath: work + "/plug/libPlug.so")
        let directory = work + "/logs"
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.crash, directory, CrashMethod.relativeLibrary, 3),
            environment: ["SWIFT_BACKTRACE": "enable=no"],
            directory: work)
        #expect(result.signal == 11, "\(result.stderr.suffix(300))")
        let images = Transcript.read(directory + "/probe.log").split(separator: "\n").filter { $0.hasPrefix("image ") }
        let plug = images.filter { $0.hasSuffix("libPlug.so") }
        #expect(plug.count == 1 && plug.first!.hasSuffix(" " + work + "/plug/libPlug.so"), "\(images)")
        // Symbolized from another folder, the frame is still named.
        let symbolized = try run(Paths.trail, ["symbolize", directory + "/probe.log"], directory: "/", check: true)
            .stdout
        let first = symbolized.split(separator: "\n").first { $0.hasPrefix("  0 ") }
        #expect(first?.contains("crc32") == true, "\(symbolized.prefix(600))")
    }

    /// Raw output to fd 2 (the runtime's, a child's) can leave a line unfinished just before the handler writes
    /// the block: the report still finds it at the marker's offset.
    @Test func aBlockAfterAnUnfinishedLineIsFoundAtTheMarkersOffset() throws {
        let directory = Paths.temporaryDirectory("unfinished-line")
        let crash = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.crash, directory, CrashMethod.abort, 3),
            environment: ["SWIFT_BACKTRACE": "enable=no"])
        #expect(crash.signal == 6)
        let log = Transcript.read(directory + "/probe.log")
        guard let begin = log.range(of: "=== TRAIL CRASH BEGIN") else {
            Issue.record("no block")
            return
        }
        let prefix = String(log[..<begin.lowerBound]) + "raw output cut short "
        try (prefix + String(log[begin.lowerBound...])).write(
            toFile: directory + "/probe.log", atomically: false, encoding: .utf8)
        let marker = Transcript.read(directory + "/probe.crash")
            .split(separator: "\n").map { $0.hasPrefix("offset=") ? "offset=\(prefix.utf8.count)" : String($0) }.joined(
                separator: "\n")
        try (marker + "\n").write(toFile: directory + "/probe.crash", atomically: false, encoding: .utf8)
        let report = try run(Paths.trail, ["report", "--crash", directory, "--no-sanitize"])
        #expect(
            report.status == 0 && report.stdout.contains("**SIGABRT"), "\(report.stderr) \(report.stdout.prefix(300))")
        #expect(report.stdout.contains("info probe: before crash 2"))
    }
}
