import Foundation
import Testing
import TrailFormat
import TrailTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The crash path under conditions that used to turn a crash into a hang or lose it: each test provokes one and
/// checks that the process dies of its signal within 5 s, leaving a block and a marker that names it (or, for a
/// fault an earlier handler repairs, that the program goes on with neither).
@Suite struct CrashPathTests {
    static let quiet = ["SWIFT_BACKTRACE": "enable=no"]

    /// Runs the probe under timeout(1): a hang is killed with SIGKILL after `seconds`, which fails the signal check.
    func runBounded(_ arguments: [String], seconds: Int = 5, environment: [String: String] = quiet) throws
        -> ProcessResult
    {
        try run(
            "/usr/bin/timeout", ["-s", "KILL", String(seconds), RuntimeProbe.path] + arguments, environment: environment
        )
    }

    /// The markers in `directory` and the blocks they name, by pid.
    func keptCrashes(_ directory: String) -> [Int: String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var crashes: [Int: String] = [:]
        for name in names where CrashMarker.isMarkerName(name, app: "probe") {
            var info = stat()
            // a FIFO left
            guard lstat(directory + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            guard let marker = CrashMarker(parsing: Transcript.read(directory + "/" + name)),
                let offset = marker.offset,
                let pid = marker.pid, let data = FileManager.default.contents(atPath: marker.log), offset < data.count
            else { continue }
            let text = String(decoding: data.dropFirst(offset), as: UTF8.self)
            guard text.hasPrefix("=== TRAIL CRASH BEGIN v1 ==="), let end = text.range(of: "=== TRAIL CRASH END ===")
            else { continue }
            crashes[pid] = String(text[..<end.upperBound])
        }
        return crashes
    }

    /// Died of `signal` (not killed by the timeout), with one marker naming a whole block of that signal.
    func expectCrashKept(
        _ result: ProcessResult, _ directory: String, signal: Int32 = 11, _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            result.signal == signal, "\(what): status \(result.shellStatus), \(result.stderr.suffix(300))",
            sourceLocation: sourceLocation)
        let crashes = keptCrashes(directory)
        #expect(crashes.count == 1, "\(what): markers \(crashes.keys)", sourceLocation: sourceLocation)
        #expect(crashes.values.first?.contains("signal: \(signal) ") == true, "\(what)", sourceLocation: sourceLocation)
    }

    /// A child forked without exec crashes while recording: its block (its own pid) and marker in the log it
    /// inherited, its trace, a backtracer report that shows its new trace writer, and a parent that goes on logging.
    @Test func aForkedChildsCrashIsKeptAndItsParentGoesOn() throws {
        let directory = Paths.temporaryDirectory("forked-child-crash")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try runBounded(
            RuntimeProbe.arguments(.crash, directory, CrashMethod.forkedChild, 10),
            environment: [
                "SWIFT_BACKTRACE": "enable=yes", "TRAIL_TRACE": "record",
                "TRAIL_TRACE_FILE": directory + "/probe.trace",
            ])
        #expect(result.status == 0, "\(result.stderr.suffix(300))")
        let crashes = keptCrashes(directory)
        #expect(crashes.count == 1, "markers \(crashes.keys)")
        let child = try #require(crashes.keys.first)
        #expect(crashes[child]?.contains("signal: 11 ") == true)
        let log = Transcript.read(directory + "/probe.log")
        let lines = log.split(separator: "\n")
        #expect(
            lines.contains { $0.hasSuffix(" info probe: child ended: 11 (trail_probe/CrashModes.swift:29)") },
            "\(log.suffix(800))")
        #expect(lines.contains { $0.hasPrefix("Thread ") && $0.hasSuffix(" \"trail-writer\":") }, "\(log.suffix(800))")
        #expect(!log.contains("failed to suspend"), "\(log.suffix(800))")
        // Replay right-aligns the thread id in six columns; pids here may have four digits or seven.
        let replay = try run(Paths.trail, ["replay", directory + "/probe.1.trace"], check: true).stdout
        let childColumn = "[" + String(repeating: " ", count: max(0, 6 - "\(child)".count)) + "\(child)] | "
        #expect(
            replay.split(separator: "\n").filter { $0.contains(childColumn + "Probe.nothing();") }.count == 1000,
            "\(replay.suffix(400))")
    }

    @Test func aCrashPastThePipePageLimitDoesNotHang() throws {
        let directory = Paths.temporaryDirectory("pipe-limit")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        if getuid() == 0 { chown(directory, 65534, 65534) }  // the probe runs as nobody (see the probe mode)
        let result = try runBounded(RuntimeProbe.arguments(.crashPastPipeLimit, directory))
        // The condition was reached: a new pipe holds less than the 16 KiB the image map once wrote into one.
        let size = result.stdout.split(separator: " ").dropFirst(3).first.flatMap { Int($0) } ?? 0
        #expect(size > 0 && size < 16384, "\(result.stdout)")
        expectCrashKept(result, directory, "past pipe-user-pages-soft")
    }

    @Test func theCrashTimeMatchesGmtimeWithoutCallingIt() throws {
        var seconds: [Int64] = [
            0, 59, 60, 86399, 86400, 951_782_400, 951_868_799, 951_868_800, 4_107_542_399,
            4_107_542_400, 4_102_444_800, 253_402_300_799, 68_169_600, 1_798_761_599,
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0 ..< 3000 { seconds.append(Int64.random(in: 0 ... 253_402_300_799, using: &generator)) }
        // Around every leap day and year end from 1970 to 2400.
        for year in 1970 ... 2400 {
            var parts = tm()
            parts.tm_year = Int32(year - 1900)
            parts.tm_mon = 2
            parts.tm_mday = 1
            let march = Int64(timegm(&parts))
            seconds += [march - 1, march, march - 86400, march - 86401]
            parts = tm()
            parts.tm_year = Int32(year - 1900)
            parts.tm_mday = 1
            let january = Int64(timegm(&parts))
            seconds += [january - 1, january]
        }
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.civilDates, "/nonexistent"),
            input: seconds.map(String.init).joined(separator: "\n") + "\n")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == seconds.count, "\(result.stderr)")
        var mismatches: [String] = []
        for (value, line) in zip(seconds, lines) {
            var time = time_t(value)
            var parts = tm()
            gmtime_r(&time, &parts)
            let expected = String(
                format: "%04d-%02d-%02dT%02d:%02d:%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
            if line != expected { mismatches.append("\(value): \(line) != \(expected)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test func aFIFOAtTheMarkerNameBeforeLaunchBlocksNothing() throws {
        let directory = Paths.temporaryDirectory("fifo-before")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        chmod(directory, 0o700)
        #expect(mkfifo(directory + "/probe.crash", 0o600) == 0)
        let result = try runBounded(RuntimeProbe.arguments(.crash, directory, CrashMethod.segv, 10))
        expectCrashKept(result, directory, "FIFO planted before launch")
    }

    @Test func fifosPlantedAfterBootstrapBlockNothing() throws {
        let directory = Paths.temporaryDirectory("fifo-after")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try runBounded(RuntimeProbe.arguments(.crashIntoFifos, directory))
        expectCrashKept(result, directory, "FIFOs planted after bootstrap")
        // The marker replaced the FIFO planted at its name.
        var info = stat()
        let pid = keptCrashes(directory).keys.first ?? 0
        #expect(
            lstat(directory + "/probe.\(pid).crash", &info) == 0 && info.st_mode & S_IFMT == S_IFREG
                && info.st_mode & 0o777 == 0o600)
    }

    @Test func twoInstancesThatCrashKeepBothCrashes() throws {
        let directory = Paths.temporaryDirectory("two-instances")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try runBounded(RuntimeProbe.arguments(.crash, directory, CrashMethod.segv, 10))
        let second = try runBounded(RuntimeProbe.arguments(.crash, directory, CrashMethod.abort, 10))
        #expect(first.signal == 11 && second.signal == 6)
        let crashes = keptCrashes(directory)
        #expect(crashes.count == 2, "\(crashes.keys)")
        for (pid, block) in crashes {
            #expect(block.contains("\npid: \(pid)\n"), "marker of \(pid) names another block")
        }
        // Each marker leads `trail report --crash` to its own process's crash.
        for pid in crashes.keys {
            let report = try run(
                Paths.trail, ["report", "--crash", "\(directory)/probe.\(pid).crash", "--no-sanitize"])
            #expect(
                report.status == 0 && report.stdout.contains("\(pid)"), "\(report.stderr) \(report.stdout.prefix(300))")
        }
        // The next launch offers the newest.
        let next = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.previous, directory), environment: Self.quiet, check: true)
        #expect(next.stdout.contains("previous: SIGABRT"), "\(next.stdout)")
    }

    @Test func theNameOfACallInAnUnloadedLibraryDoesNotEndTheBlock() throws {
        let directory = Paths.temporaryDirectory("unloaded-site")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try #"const char site[] = "Plug.gone() @ Plug/plug.c:1";"#.write(
            toFile: directory + "/site.c", atomically: true, encoding: .utf8)
        try run(
            "/usr/bin/cc", ["-shared", "-fPIC", "-o", directory + "/libsite.so", directory + "/site.c"], check: true)
        let result = try runBounded(RuntimeProbe.arguments(.crashInUnloadedSite, directory, directory + "/libsite.so"))
        expectCrashKept(result, directory, "a site in an unloaded library")
        #expect(keptCrashes(directory).values.first?.contains("\nopen 0 (unloaded) 0x") == true)
    }

    /// Without HOME the default folder is in the world-writable temporary folder: only in one of this user's own.
    @Test func withoutAHomeTheDefaultFolderIsPrivate() throws {
        let temporary = Paths.temporaryDirectory("no-home")
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        let environment = ["HOME": "", "XDG_STATE_HOME": "", "TMPDIR": temporary]
        let own = "\(temporary)/trail-\(getuid())"
        let first = try runBounded(RuntimeProbe.arguments(.defaultFolder, "-"), environment: environment)
        #expect(first.stdout == "\(own)/probe/probe.log\n", "\(first.stdout) \(first.stderr)")
        var info = stat()
        #expect(lstat(own, &info) == 0 && info.st_mode & 0o777 == 0o700 && info.st_uid == getuid())
        // One that others can write is refused, reported, and a fresh private folder used instead.
        chmod(own, 0o777)
        let second = try runBounded(RuntimeProbe.arguments(.defaultFolder, "-"), environment: environment)
        #expect(second.stderr.contains("trail: \(own) is not a folder of this user's own"), "\(second.stderr)")
        #expect(second.stdout.hasPrefix("\(own)-") && second.stdout.hasSuffix("/probe/probe.log\n"), "\(second.stdout)")
    }

    @Test func aFaultAnEarlierHandlerRepairsLetsTheProgramGoOn() throws {
        let directory = Paths.temporaryDirectory("repaired")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try runBounded(RuntimeProbe.arguments(.repairedFault, directory, FaultHandling.repair))
        #expect(result.status == 0 && result.signal == nil, "\(result.stderr.suffix(300))")
        #expect(result.stdout == "went on after 1 fault(s), page holds 42\n")
        #expect(!Transcript.read(directory + "/probe.log").contains("TRAIL CRASH"))
        #expect(keptCrashes(directory).isEmpty)
    }

    @Test func aFaultAnEarlierHandlerReturnsFromUnrepairedIsACrash() throws {
        let directory = Paths.temporaryDirectory("unrepaired")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try runBounded(RuntimeProbe.arguments(.repairedFault, directory, FaultHandling.return))
        #expect(!result.stdout.contains("went on"))
        expectCrashKept(result, directory, "a handler that returns without repairing")
    }

    @Test func aCrashInConsoleModeIsKeptInTheFolder() throws {
        let directory = Paths.temporaryDirectory("console")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try runBounded(RuntimeProbe.arguments(.consoleCrash, directory))
        #expect(
            result.stderr.contains("=== TRAIL CRASH BEGIN v1 ===") && result.stderr.contains("=== TRAIL CRASH END ==="))
        expectCrashKept(result, directory, "console mode")
        let next = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.previous, directory), environment: Self.quiet, check: true)
        #expect(next.stdout.contains("previous: SIGSEGV") && next.stdout.contains("block whole"), "\(next.stdout)")
        let report = try run(Paths.trail, ["report", "--crash", directory, "--no-sanitize"])
        #expect(report.status == 0 && report.stdout.contains("SIGSEGV"), "\(report.stderr)")
    }

    /// The same under a real terminal: `automatic` picks the console, the block reaches the terminal and the folder.
    @Test func aCrashInATerminalIsKeptInTheFolder() throws {
        let directory = Paths.temporaryDirectory("terminal")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let probe = [RuntimeProbe.path] + RuntimeProbe.arguments(.consoleCrash, directory, ConsoleDestination.automatic)
        let command = "SWIFT_BACKTRACE=enable=no " + probe.joined(separator: " ")
        let result = try run("/usr/bin/timeout", ["-s", "KILL", "5", "/usr/bin/script", "-qec", command, "/dev/null"])
        #expect(
            result.shellStatus == 128 + 11 || result.shellStatus == 11,
            "\(result.shellStatus) \(result.stdout.suffix(300))")
        #expect(
            result.stdout.contains("=== TRAIL CRASH BEGIN v1 ===") && result.stdout.contains("=== TRAIL CRASH END ==="))
        #expect(keptCrashes(directory).count == 1)
    }
}
