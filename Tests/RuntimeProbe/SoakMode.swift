import CTrailShim
import Foundation
import RuntimeProbeModes
@_spi(Testing) import Trail

#if canImport(Glibc)
import Glibc
#endif

/// One worker of `make soak`.
extension ProbeRun {
    /// One worker of `make soak` (Tests/Soak/soak.py): TAG THREADS LINES FORKS SHELLS END. THREADS threads log
    /// LINES lines each; FORKS children forked without exec log 5 lines each and end with _exit or exit;
    /// SHELLS shells inherit fd 2 and print 50 lines to it; then the worker ends by END: exit, segv, abort,
    /// fatal, term (SIGTERM to itself) or wait (until the driver kills it). Each line is "soak <source> <n> ."
    /// and what each source must have written is printed on stdout as "expect <source> <count>".
    func soak() throws {
        let tag = arguments[3]
        let threads = number(4, 2)
        let lines = number(5, 1000)
        let forks = number(6, 5)
        let shells = number(7, 2)
        let end = choice(8, or: SoakEnd.exit)
        try Trail.bootstrap(configuration)
        setvbuf(stdout, nil, _IOLBF, 0)
        let group = DispatchGroup()
        for thread in 0 ..< threads {
            group.enter()
            Thread {
                let logger = Logger(label: "soak")
                for line in 0 ..< lines { logger.info("soak \(tag)-t\(thread) \(line) .") }
                group.leave()
            }.start()
            print("expect \(tag)-t\(thread) \(lines)")
        }
        for child in 0 ..< forks {
            let pid = fork()
            if pid == 0 {
                for line in 0 ..< 5 { log.info("soak \(tag)-f\(child) \(line) .") }
                if child % 2 == 0 { _exit(0) } else { exit(0) }
            }
            var status: Int32 = 0
            var waited = 0
            while waitpid(pid, &status, WNOHANG) == 0, waited < 10_000 {
                usleep(1000)
                waited += 1
            }
            // A hung child is left for the driver to look at (its stack) and end.
            print(waited < 10_000 ? "expect \(tag)-f\(child) 5" : "hung fork \(child) pid \(pid)")
        }
        for shell in 0 ..< shells {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = [
                "-c", "i=0; while [ $i -lt 50 ]; do echo \"soak \(tag)-s\(shell) $i .\" >&2; i=$((i+1)); done",
            ]
            try process.run()
            process.waitUntilExit()
            print("expect \(tag)-s\(shell) 50")
        }
        group.wait()
        print("logged")
        switch end {
        case .segv: UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 1
        case .abort: abort()
        case .fatal: fatalError("soak fatal")
        case .term:
            kill(getpid(), SIGTERM)
            sleep(10)
        case .wait: sleep(60)
        case .exit: LogSink.shared.flush()
        }
    }
}
