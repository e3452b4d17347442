import CTrailShim
import Foundation
import RuntimeProbeModes
@_spi(Testing) import Trail

#if canImport(Glibc)
import Glibc
#endif

/// Traced calls into record mode's trace (`TRAIL_TRACE=record`): threads, forks, tasks, and the ways a process ends.
extension ProbeRun {
    /// COUNT traced synchronous calls: a known number of records (two per call).
    func calls() {
        for _ in 0 ..< number(3, 1000) { nothing() }
        print("done")
    }

    /// Async calls that suspend and resume, usually on another thread, traced as instrumented code would be.
    func asyncCalls() async {
        for round in 0 ..< number(3, 20) {
            await hop(round)
        }
        print("done")
    }

    /// Child tasks of every kind, each running a traced async call: which parent token each inherits.
    func tasks() async {
        await family()
        print("done")
    }

    /// The span ids the logger would write: inside a synchronous call, then inside an async one.
    func span() async {
        Trail.enter("Probe.spanned() @ Probe/main.swift:200")
        printSpan("sync")
        Trail.exit()
        await asyncSpan()
        printSpan("none")
    }

    /// A server's day in small: RATE requests a second for SECONDS, each a traced call with three inside; the
    /// trace flushed as it goes (the writer drains busy rings at once), then the process ends.
    func steady() {
        let seconds = number(3, 3)
        let rate = number(4, 200)
        let started = Date()
        var served = 0
        while Date().timeIntervalSince(started) < Double(seconds) {
            request(served)
            served += 1
            let due = started.addingTimeInterval(Double(served) / Double(rate))
            let wait = due.timeIntervalSinceNow
            if wait > 0 { usleep(UInt32(wait * 1e6)) }
        }
        print("served \(served)")
    }

    /// Four threads make traced calls while the main thread, inside a traced call, forks FORKS children. Each
    /// child makes 200 traced calls and ends by exit (one in three), by _exit after a trace flush, or by _exit at once.
    /// Prints "parent PID", then "child PID exit|hung" (a child still running after 10 s is killed).
    func forkCalls() {
        func forkChild() {
            Trail.enter("Probe.forkChild() @ Probe/main.swift:31")
            defer { Trail.exit() }
        }
        @Sendable func forkWorker() {
            Trail.enter("Probe.forkWorker() @ Probe/main.swift:32")
            defer { Trail.exit() }
        }
        let forks = number(3, 50)
        let stop = DispatchSemaphore(value: 0)
        let workers = DispatchGroup()
        for _ in 0 ..< 4 {
            workers.enter()
            Thread {
                var round = 0
                while true {
                    for _ in 0 ..< 200 { forkWorker() }
                    round += 1
                    if stop.wait(timeout: .now()) == .success { break }
                }
                workers.leave()
            }.start()
        }
        print("parent \(getpid())")
        Trail.enter("Probe.forker() @ Probe/main.swift:33")
        for index in 0 ..< forks {
            fflush(stdout)  // else a child's exit writes the parent's buffered lines again
            let pid = fork()
            if pid == 0 {
                for _ in 0 ..< 200 { forkChild() }
                switch index % 3 {
                case 0: exit(0)
                case 1:
                    trail_trace_flush()
                    _exit(0)
                default: _exit(0)
                }
            }
            var status: Int32 = 0
            var ended = false
            for _ in 0 ..< 10_000 {
                if waitpid(pid, &status, WNOHANG) == pid {
                    ended = true
                    break
                }
                usleep(1000)
            }
            if !ended {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
            }
            print("child \(pid) \(ended ? (index % 3 == 0 ? "exit" : "_exit") : "hung") \(status)")
        }
        Trail.exit()
        for _ in 0 ..< 4 { stop.signal() }
        workers.wait()
        print("done")
    }

    /// COUNT short-lived threads, four at a time, each making a few traced calls; prints the peak RSS in kB.
    func shortThreads() {
        let count = number(3, 1000)
        var started = 0
        while started < count {
            var batch: [pthread_t] = []
            for _ in 0 ..< min(4, count - started) {
                var thread = pthread_t()
                if pthread_create(
                    &thread, nil,
                    { _ in
                        for _ in 0 ..< 3 { nothing() }
                        return nil
                    }, nil) == 0
                {
                    batch.append(thread)
                }
            }
            for thread in batch { pthread_join(thread, nil) }
            started += 4
        }
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }?.split(separator: " ").dropFirst()
            .first
        print("peak \(peak ?? "?")")
    }

    /// THREADS fresh threads, one after another, each making 100 calls of a trivial traced function; each is
    /// kept alive until all are done, so that each sets up a ring of its own.
    func firstCalls() {
        let threads = number(3, 5)
        let finished = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        for _ in 0 ..< threads {
            Thread {
                for _ in 0 ..< 100 { nothing() }
                finished.signal()
                release.wait()
            }.start()
            finished.wait()
        }
        for _ in 0 ..< threads { release.signal() }
        print("done")
    }

    /// COUNT traced calls into a trace that cannot be created, then END: "fatal" (a fatal Trail.report) or
    /// "exit". Prints the monotonic time just before the end, so that a test sees how long the exit took.
    func traceUnwritable() {
        for _ in 0 ..< number(4, 1000) { nothing() }
        var ending = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ending)
        print("ending \(Int(ending.tv_sec) * 1_000_000_000 + ending.tv_nsec)")
        fflush(stdout)
        if choice(3, or: UnwritableTraceEnd.exit) == .fatal {
            Trail.report(ProbeError(), fatal: true, context: "trace unwritable")
        } else {
            exit(0)
        }
    }

    /// A file size limit of SIZE bytes stands in for a full disk under a trace: writes past it fail with EFBIG.
    func traceDiskFull() {
        signal(SIGXFSZ, SIG_IGN)
        var limit = rlimit(rlim_cur: rlim_t(number(4, 262_144)), rlim_max: rlim_t(number(4, 262_144)))
        setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit)
        for _ in 0 ..< number(3, 200_000) { nothing() }
        print("still running")
    }

    /// COUNT traced calls, then an end without atexit, without Trail.bootstrap: segv, abort, fatal, sigterm,
    /// sigint or pipe (a write to a pipe nobody reads).
    func traceThen() {
        for _ in 0 ..< number(4, 1000) { nothing() }
        switch choice(3, or: TraceThenEnd.segv) {
        case .abort: abort()
        case .fatal: fatalError("probe ends")
        case .sigterm: kill(getpid(), SIGTERM)
        case .sigint: kill(getpid(), SIGINT)
        case .pipe:
            var ends: [Int32] = [0, 0]
            pipe(&ends)
            close(ends[0])
            _ = write(ends[1], "x", 1)
        case .segv: UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 1
        }
        sleep(5)
        print("not ended")
    }

    /// COUNT traced calls, then exit(0) with a line still in stdout's buffer and stdout a pipe nobody reads:
    /// stdio writes it after the atexit handlers finished the trace, and the process gets SIGPIPE.
    func exitThenSignal() {
        for _ in 0 ..< number(3, 1000) { nothing() }
        var ends: [Int32] = [0, 0]
        pipe(&ends)
        dup2(ends[1], 1)
        close(ends[0])
        close(ends[1])
        print("lost")
        exit(0)
    }
}
