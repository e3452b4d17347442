import Foundation
import Testing
import TrailFormat
import TrailTestSupport

/// The logger as processes use it: the probe (Tests/RuntimeProbe) logs, crashes and is killed for real.
@Suite struct LoggerProcessTests {
    /// `chrt -f` works here: root, with CAP_SYS_NICE (a container may not have it).
    static let realTimeScheduling = (try? run("/usr/bin/chrt", ["-f", "1", "/bin/true"]))?.status == 0

    func logLines(_ directory: String) throws -> [String] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".log") }
        return files.flatMap { Transcript.read(directory + "/" + $0).split(separator: "\n").map(String.init) }
    }

    @Test func eightThreadsRotatingEvery64KiBLoseAndTearNothing() throws {
        let directory = Paths.temporaryDirectory("torture")
        let result = try run(RuntimeProbe.path, RuntimeProbe.arguments(.torture, directory, 8, 100000, 65536))
        #expect(result.status == 0, "\(result.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".log") }
        #expect(files.count > 500, "rotation every 64 KiB should give many files")
        var seen = Array(repeating: [Bool](repeating: false, count: 100_000), count: 8)
        var malformed = 0
        var duplicates = 0
        let pattern = try NSRegularExpression(
            pattern:
                #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z info t(\d): line (\d+) of thread (\d) with a payload to make it longer \(trail_probe/LoggerModes\.swift:\d+\)$"#
        )
        for file in files {
            let text = Transcript.read(directory + "/" + file)
            #expect(text.hasSuffix("\n"), "\(file) ends inside a line")
            let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/" + file)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            #expect((attributes[.size] as? Int ?? 0) <= 65536)
            for line in text.split(separator: "\n") {
                let string = String(line)
                guard let match = pattern.firstMatch(in: string, range: NSRange(string.startIndex..., in: string)),
                    let thread = Int(string[Range(match.range(at: 1), in: string)!]),
                    let index = Int(string[Range(match.range(at: 2), in: string)!]),
                    Int(string[Range(match.range(at: 3), in: string)!]) == thread
                else {
                    malformed += 1
                    continue
                }
                if seen[thread][index] { duplicates += 1 }
                seen[thread][index] = true
            }
        }
        #expect(malformed == 0)
        #expect(duplicates == 0)
        #expect(seen.allSatisfy { $0.allSatisfy { $0 } }, "every line of every thread is present")
    }

    @Test func durableModeSurvivesSIGKILL() throws {
        let directory = Paths.temporaryDirectory("durable")
        let result = try run(RuntimeProbe.path, RuntimeProbe.arguments(.durable, directory, 1000))
        #expect(result.signal == 9)
        let kept = try logLines(directory).filter { $0.contains("info probe: kept ") }
        #expect(kept.count == 1000)
        #expect(kept.last?.contains("kept 999 ") == true)
    }

    @Test func bufferedModeLosesItsLastIntervalToSIGKILL() throws {
        // The counterpart: without durability (and a 10 s flush interval), SIGKILL takes the buffer with it.
        let directory = Paths.temporaryDirectory("buffered")
        let result = try run(RuntimeProbe.path, RuntimeProbe.arguments(.buffered, directory, 1000))
        #expect(result.signal == 9)
        #expect(try logLines(directory).filter { $0.contains("kept") }.count < 1000)
    }

    @Test(
        arguments: [(.segv, 11), (.abort, 6), (.fatal, 4), (.trap, 5), (.threadOverflow, 11)] as [(CrashMethod, Int32)])
    func crashSignalsLoseNoBufferedLine(method: CrashMethod, signal: Int32) throws {
        for backtracer in ["enable=yes", "enable=no"] {
            let directory = Paths.temporaryDirectory("crash-\(method)")
            let result = try run(
                RuntimeProbe.path, RuntimeProbe.arguments(.crash, directory, method, 1000),
                environment: ["SWIFT_BACKTRACE": backtracer])
            #expect(result.signal == signal, "\(method) with \(backtracer): \(result.stderr.suffix(500))")
            let lines = try logLines(directory)
            #expect(lines.filter { $0.contains("info probe: before crash ") }.count == 1000, "\(method) \(backtracer)")
            #expect(lines.contains("=== TRAIL CRASH BEGIN v1 ==="), "\(method) \(backtracer)")
            // The backtracer pauses every thread to show it: the stderr pipe's holder thread lets it, once the
            // block is written (it blocked every signal, and each report said backtraces would miss information).
            // The stderr drain stays alive to the end rather than end as the crash takes the file: an ending
            // thread blocks every signal, and the backtracer said it "failed to suspend" it.
            if backtracer == "enable=yes" {
                for thread in ["trail-stderr-rd", "trail-stderr", "trail-log"] {
                    #expect(
                        lines.contains { $0.hasPrefix("Thread ") && $0.hasSuffix(" \"\(thread)\":") },
                        "\(method), \(thread): \(lines.filter { $0.hasPrefix("Thread ") || $0.contains("failed to suspend") })"
                    )
                }
            }
            if method == .threadOverflow {
                #expect(lines.contains { $0.hasPrefix("thread: ") && $0.hasSuffix(" probe-worker") })
            }
        }
    }

    /// Recording, a crash soon after start-up: the trace writer, busy draining when the crash came, started the
    /// pruner (which blocks every signal, as the writer does) after it, and every report warned the backtracer
    /// "failed to suspend" it. A pruner at work when the crash comes (old traces to delete) stops at its next file
    /// and lets the backtracer pause it.
    @Test(arguments: [0, 4000])
    func aCrashWhileRecordingShowsEveryThread(oldTraces: Int) throws {
        let directory = Paths.temporaryDirectory("crash-recording-\(oldTraces)")
        // A trace header whose writer, pid 999999, is gone.
        let header = Data("TRAILTRC".utf8) + Data(count: 8) + Data([0x3f, 0x42, 0x0f, 0]) + Data(count: 100)
        for index in 0 ..< oldTraces {
            try header.write(to: URL(fileURLWithPath: directory + "/old-\(index).trace"))
        }
        let arguments =
            oldTraces == 0
            ? RuntimeProbe.arguments(.crash, directory, CrashMethod.traced, 10)
            : RuntimeProbe.arguments(.traceThen, directory, TraceThenEnd.segv, 1_000_000)
        let result = try run(
            RuntimeProbe.path, arguments,
            environment: [
                "SWIFT_BACKTRACE": "enable=yes", "TRAIL_TRACE": "record",
                "TRAIL_TRACE_FILE": directory + "/probe.trace",
                "TRAIL_TRACE_KEEP_FILES": "2",
            ])
        #expect(result.signal == 11, "\(result.stderr.suffix(500))")
        let report = oldTraces == 0 ? try logLines(directory) : result.stderr.split(separator: "\n").map(String.init)
        #expect(
            report.contains { $0.hasPrefix("Thread ") && $0.hasSuffix(" \"trail-writer\":") }, "\(report.suffix(40))")
        #expect(
            !report.contains { $0.contains("failed to suspend") },
            "\(report.filter { $0.hasPrefix("Thread ") || $0.contains("failed to suspend") })")
    }

    /// Log mode with fd 2 a pipe: its lines go through a thread that blocks every signal and slept on a condition
    /// variable, which a crash handler cannot signal, so the backtracer "failed to suspend" it in every crash. It
    /// sleeps on a futex word now, which the crash handler wakes; it then takes SIGPROF.
    @Test func aCrashInLogModeShowsTheLineWriter() throws {
        let directory = Paths.temporaryDirectory("crash-log-mode")
        let result = try run(
            "/bin/bash",
            ["-c", #"set -o pipefail; "$@" 2>&1 | cat"#, "-", RuntimeProbe.path]
                + RuntimeProbe.arguments(.crash, directory, CrashMethod.traced, 10),
            environment: ["SWIFT_BACKTRACE": "enable=yes", "TRAIL_TRACE": "1"])
        #expect(result.status == 128 + 11, "\(result.stdout.suffix(500))")
        let report = try logLines(directory) + result.stdout.split(separator: "\n").map(String.init)
        #expect(
            report.contains { $0.hasPrefix("Thread ") && $0.hasSuffix(" \"trail-lines\":") }, "\(report.suffix(40))")
        #expect(
            !report.contains { $0.contains("failed to suspend") },
            "\(report.filter { $0.hasPrefix("Thread ") || $0.contains("failed to suspend") })")
    }

    /// A server of the sigwait kind blocks the signals it wants in every thread it has and takes them on one of
    /// its own. Trail's logger threads blocked none of them, and a signal sent to the process went to one of
    /// those: the server died of SIGTERM (Trail's handler, or the default action) instead of shutting down.
    @Test(arguments: [SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2])
    func aSigwaitServerGetsItsSignals(signal: Int32) throws {
        let directory = Paths.temporaryDirectory("sigwait-\(signal)")
        let result = try run(
            "/usr/bin/timeout",
            ["-s", "KILL", "10", RuntimeProbe.path]
                + RuntimeProbe.arguments(.sigwaitServer, directory, "traced", Int(signal)),
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": directory + "/probe.trace"])
        #expect(
            result.status == 0 && result.stdout == "sigwait got \(signal)\n",
            "\(result.shellStatus): \(result.stdout) \(result.stderr.suffix(300))")
    }

    /// A new thread runs with every signal blocked until it sets its own mask: one of Trail's not yet scheduled
    /// when the program crashes soon after start-up (a loaded machine) could not be paused by the backtracer, and
    /// its report said so. `bootstrap` returns once its threads run. Round-robin real-time scheduling on one CPU
    /// runs a new thread only when the one that made it blocks, so without that wait they would not have started.
    @Test(.enabled(if: realTimeScheduling, "real-time scheduling needs CAP_SYS_NICE"))
    func bootstrapReturnsOnceItsThreadsRun() throws {
        let directory = Paths.temporaryDirectory("bootstrap-threads")
        let result = try run(
            "/usr/bin/chrt",
            ["-f", "1", "/usr/bin/taskset", "-c", "0", RuntimeProbe.path]
                + RuntimeProbe.arguments(.bootstrapThreads, directory))
        #expect(result.status == 0, "\(result.stderr)")
        let names = result.stdout.split(separator: "\n")
        #expect(names.contains("trail-stderr") && names.contains("trail-log"), "\(names)")
    }

    @Test func aLibraryLoadedJustBeforeTheCrashIsInTheImageMap() throws {
        // The prepared map is refreshed once a second; the crash block finds libz in /proc/self/maps.
        let directory = Paths.temporaryDirectory("late-library")
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.crash, directory, CrashMethod.lateLibrary, 3),
            environment: ["SWIFT_BACKTRACE": "enable=no"])
        #expect(result.signal == 11, "\(result.stderr.suffix(500))")
        let images = CrashLog.parse(try logLines(directory).joined(separator: "\n")).blocks.flatMap(\.images)
        let zlib = images.filter { $0.path.contains("/libz.so") }
        #expect(zlib.count == 1, "\(images)")
        #expect(zlib.first?.buildID?.count == 40, "a build ID: \(zlib)")
        let bases = images.map(\.base)
        #expect(Set(bases).count == bases.count, "each object once: \(images)")
        let symbolized = try run(Paths.trail, ["symbolize", directory + "/probe.log"], check: true).stdout
        let first = symbolized.split(separator: "\n").first { $0.hasPrefix("  0 ") }
        #expect(first?.contains("libz.so") == true && first?.contains("crc32") == true, "\(symbolized.prefix(600))")
    }

    @Test func childFprintfAndSwiftFatalErrorLandInTheLog() throws {
        let directory = Paths.temporaryDirectory("stderr")
        let result = try run(RuntimeProbe.path, RuntimeProbe.arguments(.stderr, directory), check: true)
        #expect(result.stdout.contains("parent print to stdout"))
        #expect(!result.stderr.contains("fprintf"), "fd 2 points at the file, not the console")
        let log = Transcript.read(directory + "/probe.log")
        for text in [
            "child C fprintf to stderr", "parent fputs to stderr", "info probe: before child",
            "info probe: after child",
        ] {
            #expect(log.contains(text), "\(text)")
        }

        let fatalDirectory = Paths.temporaryDirectory("fatal")
        let fatal = try run(RuntimeProbe.path, RuntimeProbe.arguments(.fatal, fatalDirectory))
        #expect(fatal.signal == 4)
        let fatalLog = Transcript.read(fatalDirectory + "/probe.log")
        #expect(fatalLog.contains("info probe: about to fail"))
        #expect(fatalLog.contains("Fatal error: probe fatal error"))
    }

    @Test func previousRunIsRotatedNotTruncated() throws {
        let directory = Paths.temporaryDirectory("reopen")
        try run(RuntimeProbe.path, RuntimeProbe.arguments(.stderr, directory), check: true)
        let first = Transcript.read(directory + "/probe.log")
        try run(RuntimeProbe.path, RuntimeProbe.arguments(.stderr, directory), check: true)
        #expect(Transcript.read(directory + "/probe.1.log") == first)
        #expect(Transcript.read(directory + "/probe.log").contains("after child"))
    }

    @Test func symlinksInTheLogFolderAreNotFollowed() throws {
        let directory = Paths.temporaryDirectory("symlink")
        let target = Paths.temporaryDirectory("symlink-target") + "/precious.txt"
        try "precious\n".write(toFile: target, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: directory + "/probe.log", withDestinationPath: target)
        try run(RuntimeProbe.path, RuntimeProbe.arguments(.stderr, directory), check: true)
        #expect(Transcript.read(target) == "precious\n")
        let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/probe.log")
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        #expect(Transcript.read(directory + "/probe.log").contains("after child"))
    }

    /// A write past RLIMIT_FSIZE would kill the program with SIGXFSZ (at its default here): the log rotates at the
    /// limit, as at a full file, and nothing is reported as a write error.
    @Test func theFileSizeLimitIsAFullFileNotADeath() throws {
        let directory = Paths.temporaryDirectory("file-size-limit")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try run(RuntimeProbe.path, RuntimeProbe.arguments(.fileSizeLimit, directory))
        #expect(result.shellStatus == 0, "\(result.stderr)")
        #expect(result.stdout.contains("still running"))
        #expect(!result.stderr.contains("cannot write log file"), "\(result.stderr)")
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name.hasSuffix(".log") {
            let text = Transcript.read(directory + "/" + name)
            #expect(text.utf8.count <= 4096, "\(name): \(text.utf8.count) bytes")
            #expect(text.hasSuffix("\n") && text.split(separator: "\n").allSatisfy { $0.hasSuffix(")") }, "\(name)")
        }
    }

    /// A real full disk (a 256 KiB tmpfs in a mount namespace of its own, so root only), twice filled and freed:
    /// each episode is reported once and its end once, and every line in the files is whole: a write cut short
    /// at the full disk leaves no part of a line for the next one to be appended to.
    @Test(.enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
    func aFullDiskIsReportedOncePerEpisodeAndTearsNoLine() throws {
        let root = Paths.temporaryDirectory("full-disk")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let script =
            "mount -t tmpfs -o size=256k trail-test \"$1\" && mkdir \"$1/logs\" && \"$2\" \(ProbeMode.fullDisk.rawValue) \"$1/logs\""
            + " && cp -R \"$1/logs\" \"$1.copy\""
        let result = try run("unshare", ["-m", "sh", "-c", script, "sh", root, RuntimeProbe.path])
        #expect(result.shellStatus == 0, "\(result.stderr)")
        #expect(result.stdout.contains("done"))
        #expect(result.stderr.components(separatedBy: "cannot write log file").count - 1 == 2, "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "again;").count - 1 == 2, "\(result.stderr)")
        let copy = root + ".copy"
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let names = try FileManager.default.contentsOfDirectory(atPath: copy).filter { $0.hasSuffix(".log") }
        #expect(!names.isEmpty)
        for name in names {
            let text = Transcript.read(copy + "/" + name)
            // A torn line with the next one appended still starts and ends as a line does: it holds two.
            let torn = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().filter {
                !($0.hasPrefix("20") && $0.hasSuffix(")") && $0.components(separatedBy: " info probe: ").count == 2)
            }
            #expect(text.hasSuffix("\n") && torn.isEmpty, "\(name): \(torn.prefix(3))")
        }
    }
}
