import Foundation
import Testing
import TrailTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The differential suite: each program of Tests/ProcessCorpus does to its own process what services do after
/// start-up, and runs four ways: untraced (built without Trail), traced with tracing off, recording a trace, and
/// logging (Trail.bootstrap, TRAIL_TRACE=log). What the program observes (its exit, its stdout, the files it
/// writes) must be the same all four ways; Trail's files must be only in Trail's folders, within their bounds;
/// nothing may hang. `make soak` runs the whole corpus many times (TRAIL_CORPUS_ROUNDS).
@Suite struct ProcessCorpusTests {
    static let programs = [
        "close-and-reopen", "daemonize", "dup2-over-stderr", "descriptor-limit", "change-directory", "umask-zero",
        "file-size-limit", "address-space-limit", "small-stack", "drop-privileges", "wait-any", "fork-without-exec",
        "spawn-file-actions", "system-and-popen", "huge-arguments", "exec-from-signal-handler", "failed-exec",
        "exec-soon", "exec-after-spawn", "signal-dispositions", "fork-while-flooding", "outlive", "threads-that-die",
    ]
    static let rounds = Int(ProcessInfo.processInfo.environment["TRAIL_CORPUS_ROUNDS"] ?? "") ?? 1

    enum Mode: String, CaseIterable {
        /// log: Trail.bootstrap and TRAIL_TRACE=log, lines through the logger; lineFile: TRAIL_TRACE=log into
        /// TRAIL_TRACE_FILE, without bootstrap.
        case untraced, off, record, log, lineFile
    }

    /// The log bounds every logging run gets: small, so that the programs rotate.
    static let maxFileSize = 64 << 10
    static let maxTotalSize = 256 << 10
    static let maxTraceSize = 1 << 20

    /// What one run left: what the program observed, and where Trail's files went.
    struct Run {
        var observed: String
        var trailFolder: String
    }

    /// Runs `program` in `mode` with a fresh folder of its own and a fresh folder for Trail, which is also its
    /// working directory; the log folder is given relative to it, so that a chdir after start-up is seen.
    func run(_ program: String, _ mode: Mode, in root: String) throws -> Run {
        let work = root + "/\(mode)-work"
        let trail = root + "/\(mode)-trail"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: trail, withIntermediateDirectories: true)
        let binary = Paths.buildDirectory + (mode == .untraced ? "/trail-corpus-plain" : "/trail-corpus")
        var environment: [String: String] = [:]
        switch mode {
        case .untraced, .off: break
        case .record:
            environment["TRAIL_TRACE"] = "record"
            environment["TRAIL_TRACE_MAX_SIZE"] = "\(Self.maxTraceSize)"
        case .lineFile:
            environment["TRAIL_TRACE"] = "log"
            environment["TRAIL_TRACE_FILE"] = "trail-lines/%p.log"
            environment["TRAIL_TRACE_MAX_SIZE"] = "\(Self.maxTraceSize)"
        case .log:
            environment["TRAIL_TRACE"] = "log"
            environment["TRAIL_CORPUS_LOG_DIR"] = Self.logFolderName(program)
            environment["TRAIL_LOG_MAX_SIZE"] = "\(Self.maxFileSize)"
            environment["TRAIL_LOG_MAX_TOTAL"] = "\(Self.maxTotalSize)"
        }
        let result = try TrailTestSupport.run(
            "timeout", ["-s", "KILL", "60", binary, program, work], environment: environment, directory: trail)
        if program == "daemonize" {  // the daemon outlives the program: its last step is WORK/done
            var waited = 0
            while !FileManager.default.fileExists(atPath: work + "/done"), waited < 600 {
                usleep(50_000)
                waited += 1
            }
        }
        var observed =
            "exit \(result.shellStatus)\n--- stdout\n" + result.stdout.replacingOccurrences(of: work, with: "WORK")
        observed += "--- files\n" + (try describeFiles(work))
        return Run(observed: observed, trailFolder: trail)
    }

    /// A unique relative name: after a chdir("/"), a log folder taken relative to the new directory would be
    /// "/<name>", which the tests look for.
    static func logFolderName(_ program: String) -> String { "trail-corpus-logs-\(getpid())-\(program)" }

    /// Each file under `folder` with its mode and a digest of its bytes, sorted.
    func describeFiles(_ folder: String) throws -> String {
        let names = (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).sorted()
        return names.map { name in
            var info = stat()
            lstat(folder + "/" + name, &info)
            let bytes = FileManager.default.contents(atPath: folder + "/" + name) ?? Data()
            let digest = bytes.reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
            return
                "\(name) mode \(String(info.st_mode & 0o7777, radix: 8)) \(bytes.count) bytes \(String(digest, radix: 16))\n"
        }.joined()
    }

    /// Trail's files after a run: only in its own folder, within the bounds of the mode.
    func checkTrailFiles(_ run: Run, _ mode: Mode, _ program: String) throws {
        let top = try FileManager.default.contentsOfDirectory(atPath: run.trailFolder).sorted()
        let files = (FileManager.default.enumerator(atPath: run.trailFolder)?.allObjects as? [String] ?? [])
            .filter { $0.contains("/") }  // the files inside the top folders
        func size(_ name: String) -> Int {
            var info = stat()
            return lstat(run.trailFolder + "/" + name, &info) == 0 ? Int(info.st_size) : 0
        }
        switch mode {
        case .untraced, .off:
            #expect(top.isEmpty, "\(program) \(mode): nothing of Trail's: \(top)")
        case .lineFile:
            #expect(top.allSatisfy { $0 == "trail-lines" }, "\(program) line file: only its folder: \(top)")
            for file in files {
                #expect(size(file) <= Self.maxTraceSize + 4096, "\(program) line file: \(file) \(size(file))")
            }
        case .record:
            #expect(top.allSatisfy { $0 == "trail-traces" }, "\(program) record: only the trace folder: \(top)")
            for file in files {
                #expect(size(file) <= Self.maxTraceSize + 4096, "\(program) record: \(file) \(size(file))")
            }
        case .log:
            #expect(top == [Self.logFolderName(program)], "\(program) log: only the log folder: \(top)")
            // One file may grow past its share only while it cannot be rotated (drop-privileges), never past the
            // total; forked children write outside the count, within one more file.
            let total = files.map(size).reduce(0, +)
            #expect(total <= Self.maxTotalSize + 2 * Self.maxFileSize, "\(program) log: \(total) bytes in \(files)")
            for file in files { #expect(size(file) <= Self.maxTotalSize, "\(program) log: \(file) \(size(file))") }
        }
        let misplaced = "/" + Self.logFolderName(program)
        #expect(!FileManager.default.fileExists(atPath: misplaced), "\(program): a log folder at /")
        try? FileManager.default.removeItem(atPath: misplaced)
    }

    /// exec from a signal handler while the logger writes: the exec hook only tries the sink's locks, which the
    /// interrupted thread may hold (it hung in 2 of 6 runs when it waited for them).
    @Test func execFromASignalHandlerNeverHangs() throws {
        for round in 0 ..< 8 {
            let root = Paths.temporaryDirectory("exec-from-handler")
            defer { try? FileManager.default.removeItem(atPath: root) }
            let logged = try run("exec-from-signal-handler", .log, in: root)
            #expect(logged.observed.hasPrefix("exit 0\n--- stdout\nexec from a signal handler\n"), "round \(round)")
        }
    }

    /// Forks while another thread floods stderr, recording into a folder that cannot be made: the fork's prepare
    /// handler said so on fd 2 while the logger's lock, which the pipe's reader needs, was held, and the fork hung
    /// (4 runs of 5) once the pipe was full. A poll for room before the message was not enough either: the flooder
    /// filled the pipe between the poll and the write (1 run in 400, under load), so each round is one more chance.
    @Test func aForkNeverWaitsOnAFullStderrPipe() throws {
        for round in 0 ..< 20 {
            let root = Paths.temporaryDirectory("fork-flooding")
            defer { try? FileManager.default.removeItem(atPath: root) }
            let result = try TrailTestSupport.run(
                "sh",
                [
                    "-c", "cd \"$1\" && exec timeout -s KILL 20 \"$2\" fork-while-flooding \"$1\" 2>/dev/null", "sh",
                    root,
                    Paths.buildDirectory + "/trail-corpus",
                ],
                environment: [
                    "TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": "/proc/trail-none/%p.trace",
                    "TRAIL_CORPUS_LOG_DIR": "logs", "TRAIL_LOG_MAX_SIZE": "1M", "TRAIL_LOG_MAX_TOTAL": "4M",
                ])
            #expect(
                result.shellStatus == 0 && result.stdout == "20 children ended\n",
                "round \(round): \(result.shellStatus)")
        }
    }

    /// After an exec that fails, fd 2 is the logger's pipe again, counted against the bounds: it stayed a plain
    /// copy of that moment's log file, which rotation then took away, and grew without bound once deleted.
    @Test func aFailedExecPutsStderrBackOnThePipe() throws {
        let root = Paths.temporaryDirectory("failed-exec")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/work", withIntermediateDirectories: true)
        let result = try TrailTestSupport.run(
            "timeout", ["-s", "KILL", "60", Paths.buildDirectory + "/trail-corpus", "failed-exec", root + "/work"],
            environment: [
                "TRAIL_CORPUS_LOG_DIR": root + "/logs", "TRAIL_CORPUS_SHOW_STDERR": "1", "TRAIL_LOG_MAX_SIZE": "64K",
            ])
        #expect(result.stdout.hasSuffix("stderr is a pipe\ndone\n"), "\(result.stdout)")
    }

    /// The keeper that drains stderr for a child outliving the program is the program's own fork: it must not
    /// run the program's signal handlers (Trail's crash handler would write a crash block, and the buffered lines a
    /// second time, into the log).
    @Test func theKeeperRunsNoneOfTheProgramsHandlers() throws {
        let root = Paths.temporaryDirectory("keeper")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/work", withIntermediateDirectories: true)
        let result = try TrailTestSupport.run(
            Paths.buildDirectory + "/trail-corpus", ["outlive", root + "/work"],
            environment: ["TRAIL_CORPUS_LOG_DIR": root + "/logs"])
        #expect(result.stdout == "spawned\n")
        // The keeper: a process with the program's command line, still there after the program ended.
        let marker = Array("outlive\0\(root)/work".utf8)
        let keepers = (try FileManager.default.contentsOfDirectory(atPath: "/proc")).compactMap { Int32($0) }.filter {
            pid in
            guard let line = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return [UInt8](line).firstRange(of: marker) != nil
        }
        #expect(keepers.count == 1, "\(keepers)")
        for pid in keepers { kill(pid, SIGSEGV) }
        usleep(300_000)
        let log = Transcript.read(root + "/logs/corpus.log")
        #expect(!log.contains("TRAIL CRASH"), "\(log.suffix(2000))")
        #expect(log.components(separatedBy: "after spawn line 0 ").count == 2)
    }

    @Test(arguments: programs)
    func theProgramObservesTheSameInEveryMode(program: String) throws {
        for _ in 0 ..< Self.rounds {
            let root = Paths.temporaryDirectory("corpus-\(program)")
            defer { try? FileManager.default.removeItem(atPath: root) }
            let untraced = try run(program, .untraced, in: root)
            #expect(untraced.observed.hasPrefix("exit 0\n"), "\(program) untraced:\n\(untraced.observed)")
            for mode in Mode.allCases {
                let traced = mode == .untraced ? untraced : try run(program, mode, in: root)
                #expect(traced.observed == untraced.observed, "\(program) \(mode) differs from untraced")
                try checkTrailFiles(traced, mode, program)
            }
        }
    }
}

/// Log mode (TRAIL_TRACE=log, no bootstrap) on a stderr that is a pipe buffers its lines for a writer thread:
/// what an exec or an _exit would take with it is written first, and once a process forked, its lines and its
/// child's are written whole, never splitting each other.
@Suite struct LogModeEndTests {
    /// The trace lines on stderr, counted by the pid in their "[trail PID]" prefix.
    func linesByProcess(_ program: String) throws -> [Int] {
        let root = Paths.temporaryDirectory("log-mode-\(program)")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let binary = Paths.buildDirectory + "/trail-corpus"
        let result = try run(
            "sh", ["-c", "\"$1\" \"$2\" \"$3\" 2>&1 >/dev/null | cat > \"$3/stderr\"", "sh", binary, program, root],
            environment: ["TRAIL_TRACE": "log"])
        #expect(result.shellStatus == 0)
        let text = Transcript.read(root + "/stderr")
        var counts: [Substring: Int] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("[trail ") {
            // A line split by another process's holds two prefixes: counted apart, so that the counts fail.
            let key = line.components(separatedBy: "[trail ").count == 2 ? line.prefix { $0 != "]" } : "split"
            counts[key, default: 0] += 1
        }
        return counts.values.sorted()
    }

    @Test func aForkedChildThatEndsWithExitKeepsItsLines() throws {
        for _ in 0 ..< 3 {
            let seen = try linesByProcess("fork-without-exec")
            // The parent: 201 calls before the fork, the forking call and 501 after; the child: the forking call's
            // exit and 501 calls (busy and its leaves).
            #expect(seen == [1003, 1406], "\(seen)")
        }
    }

    /// A call entered before a fork is left by both processes: each exit line names the ids its entry line did.
    @Test func aForkedChildLeavesItsParentsCallUnderTheSameIDs() throws {
        let root = Paths.temporaryDirectory("log-mode-ids")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let result = try run(
            Paths.buildDirectory + "/trail-corpus", ["fork-without-exec", root], environment: ["TRAIL_TRACE": "log"])
        // "trace_id=<hex> span_id=<hex>" of the entry in the parent and of the exits in both processes.
        let ids = result.stderr.split(separator: "\n").filter { $0.contains("Corpus.forking()") }.map {
            $0.components(separatedBy: "  trace_id=").last ?? ""
        }
        #expect(ids.count == 3, "\(ids)")
        #expect(Set(ids).count == 1, "\(ids)")
    }

    @Test func linesMadeJustBeforeAnExecAreWritten() throws {
        for _ in 0 ..< 3 {
            let seen = try linesByProcess("exec-soon")
            #expect(seen == [602], "\(seen)")
        }
    }
}
