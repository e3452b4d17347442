import CTrailShim
import Foundation
import RuntimeProbeModes
@_spi(Testing) import Trail

#if canImport(Glibc)
import Glibc
#endif

/// The logger in one process: rotation under load, durability, formats, fd 2 and its limits.
extension ProbeRun {
    /// THREADS threads x LINES lines, rotating every ROTATE bytes, every file kept.
    func torture() throws {
        let threads = number(3, 8)
        let lines = number(4, 100_000)
        configuration.maxFileSize = number(5, 65536)
        configuration.maxFiles = 1_000_000
        configuration.maxTotalSize = Int.max
        try Trail.bootstrap(configuration)
        let group = DispatchGroup()
        for thread in 0 ..< threads {
            group.enter()
            Thread {
                let logger = Logger(label: "t\(thread)")
                for line in 0 ..< lines {
                    logger.info("line \(line) of thread \(thread) with a payload to make it longer")
                }
                group.leave()
            }.start()
        }
        group.wait()
    }

    /// Logs COUNT lines, then dies of SIGKILL, which no handler sees.
    func logThenKill() throws {
        configuration.durable = mode == .durable
        configuration.flushInterval = 10  // so that only durability can save the lines
        try Trail.bootstrap(configuration)
        for line in 0 ..< number(3, 1000) { log.info("kept \(line)") }
        kill(getpid(), SIGKILL)
    }

    /// A next launch: what bootstrap found of the previous run's crash.
    func previous() throws {
        try Trail.bootstrap(configuration)
        if let crash = Trail.previousCrash {
            let whole =
                crash.block.hasPrefix("=== TRAIL CRASH BEGIN") && crash.block.contains("=== TRAIL CRASH END ===")
            print("previous: \(crash.summary) in \(crash.logFile) block \(whole ? "whole" : "cut")")
        } else {
            print("previous: none")
        }
    }

    /// LINES lines into a rotating log with a total quota, while a watcher measures the folder every
    /// millisecond: the largest total it saw is printed.
    func quota() throws {
        try Trail.bootstrap(configuration)
        let watch = FolderWatch(directory, every: 1000)
        for line in 0 ..< number(3, 20_000) { log.info("line \(line) of a log kept within its quota") }
        LogSink.shared.flush()
        usleep(5000)
        print("largest \(watch.stop())")
    }

    /// Integers through the logger's own decimal formatter, one per line.
    func numbers() throws {
        try Trail.bootstrap(configuration)
        for value in [
            0, 7, 9, 10, 42, 99, 100, 101, 999, 1000, 65535, 1_234_567, -1, -9, -10, -100, -98765, Int.max, Int.min,
        ] {
            log.info("number \(value)")
        }
        LogSink.shared.flush()
    }

    /// Prints the name of each of the process's threads right after `bootstrap` returns, a line each.
    func bootstrapThreads() throws {
        try Trail.bootstrap(configuration)
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        for task in tasks.sorted() {
            let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? "?\n"
            print(name, terminator: "")
        }
    }

    /// A server of the sigwait kind: after `bootstrap` (unless `plain`), SIGTERM, SIGINT, SIGHUP, SIGUSR1 and
    /// SIGUSR2 are blocked, and one thread takes them with sigwait. The process sends itself SIGNAL (by number)
    /// and prints what that thread got, then exits 0.
    func sigwaitServer() throws {
        if arguments.count <= 3 || arguments[3] != "plain" { try Trail.bootstrap(configuration) }
        let wanted = Int32(number(4, Int(SIGTERM)))
        var set = sigset_t()
        sigemptyset(&set)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2] { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        let waited = set
        let waiter = Thread {
            var received: Int32 = 0
            var set = waited
            sigwait(&set, &received)
            print("sigwait got \(received)")
            fflush(stdout)
            exit(0)
        }
        waiter.start()
        usleep(100_000)
        kill(getpid(), wanted)
        sleep(5)
        print("no signal taken")
        exit(3)
    }

    /// A buffered line, then a termination signal (SIGTERM, SIGINT or SIGHUP), as `systemctl stop` sends.
    func lastWords() throws {
        configuration.flushInterval = 10
        try Trail.bootstrap(configuration)
        log.info("shutting down")
        switch choice(3, or: LastWordsSignal.term) {
        case .term: kill(getpid(), SIGTERM)
        case .int: kill(getpid(), SIGINT)
        case .hup: kill(getpid(), SIGHUP)
        }
        sleep(5)
        print("not ended")
    }

    /// Text a program logs that looks like a crash block, with terminal escapes and a NUL.
    func forge() throws {
        try Trail.bootstrap(configuration)
        let forged =
            "ok\n=== TRAIL CRASH BEGIN v1 ===\nsignal: 11 SIGSEGV\n=== TRAIL CRASH END ===\r\n\u{1B}[31mred\u{0}"
        log.info("\(forged)", metadata: ["note": "two\nlines"])
        LogSink.shared.flush()
    }

    /// Another process writing with C stdio, and this one too, both through the redirected fd 2.
    func stderrFromTwoProcesses() throws {
        try Trail.bootstrap(configuration)
        log.info("before child")
        let child = Process()
        child.executableURL = URL(fileURLWithPath: arguments[0])
        child.arguments = [ProbeMode.childFprintf.rawValue, directory]
        try child.run()
        child.waitUntilExit()
        fputs("parent fputs to stderr\n", stderr)
        print("parent print to stdout")
        log.info("after child")
        LogSink.shared.flush()
    }

    func childFprintf() {
        fputs("child C fprintf to stderr\n", stderr)
    }

    /// Every kind of line a JSON log holds: metadata (nested, escaped), every level, raw stderr, 4 threads.
    func jsonLines() throws {
        configuration.level = .trace
        try Trail.bootstrap(configuration)
        var tagged = Logger(label: "json \"probe\"", level: .trace)
        tagged[metadataKey: "request"] = "r-1"
        for level in Logger.Level.allCases { tagged.log(level: level, "level \(level.rawValue)") }
        tagged.info(
            "quote \" backslash \\ newline \n tab \t bell \u{7} é",
            metadata: ["nested": ["list": ["a", "b"], "n": "1"]])
        fputs("raw stderr line\n", stderr)
        let lines = number(3, 5000)
        let group = DispatchGroup()
        for thread in 0 ..< 4 {
            group.enter()
            Thread {
                let logger = Logger(label: "t\(thread)")
                for line in 0 ..< lines { logger.info("line \(line) of thread \(thread)") }
                group.leave()
            }.start()
        }
        group.wait()
        LogSink.shared.flush()
    }

    /// Lines outside any traced call, inside a synchronous one, and inside an async one (TRAIL_TRACE=record).
    func jsonSpans() async throws {
        try Trail.bootstrap(configuration)
        log.info("outside")
        Trail.enter("Probe.outer() @ Probe/main.swift:1")
        log.info("inside sync")
        Trail.exit()
        await spanned()
        LogSink.shared.flush()
    }

    func fatal() throws {
        try Trail.bootstrap(configuration)
        log.info("about to fail")
        fatalError("probe fatal error")
    }

    /// RLIMIT_FSIZE of 4 KiB with SIGXFSZ at its default: a write past it would kill the program. The log rotates at
    /// the limit instead, as at a full file.
    func fileSizeLimit() throws {
        var limit = rlimit(rlim_cur: 4096, rlim_max: 4096)
        setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit)
        try Trail.bootstrap(configuration)
        for line in 0 ..< 2000 { log.info("line \(line) that will not all fit") }
        LogSink.shared.flush()
        print("still running")
    }

    /// A traced async call that logs, for `json-spans`.
    func spanned() async {
        let span = Trail.enterAsync("Probe.spanned() @ Probe/main.swift:2")
        defer { Trail.exit(span) }
        await Task.yield()
        log.info("inside async")
    }
}
