#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C (SIGINT), SIGTERM and SIGHUP during `trail test` or `trail run`. While a child runs, its process group
/// (SwiftPM, the compilers, the tests) gets SIGINT and this process waits for it to end (`ChildProcess` kills
/// what is left after three seconds), then exits. Between children (copying, instrumenting) the process exits at
/// once: every file of the copy is written to a temporary name and renamed, and the state that says which
/// copies are up to date is written only after they are instrumented, so the next run redoes what was cut off.
public enum Interruption {
    /// The running child as `kill` takes it: `-pgid` for a group of its own, else its pid; 0 for none.
    nonisolated(unsafe) static var child: pid_t = 0
    nonisolated(unsafe) static var signal: Int32 = 0
    public static var requested: Bool { signal != 0 }
    nonisolated(unsafe) private static var installed = false

    /// Installs the handlers (once).
    public static func install() {
        guard !installed else { return }
        installed = true
        for number in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                let first = Interruption.signal == 0
                Interruption.signal = number
                let child = Interruption.child
                if child == 0 {
                    Interruption.exitNow()
                } else if first {
                    kill(child, SIGINT)
                }
            }
            sigemptyset(&action.sa_mask)
            // Reads and writes under way go on: Foundation's FileHandle traps on EINTR (a pipe to a child cut by
            // the signal ended trail with SIGILL, exit 132, instead of 130).
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
    }

    /// Runs `body` while `pid` (a viewer whose output the summary shows) is the child a signal stops, and exits
    /// after it when a signal came: a Ctrl-C during the summary leaves no viewer running.
    public static func whileRunning<Result>(_ pid: pid_t, _ body: () -> Result) -> Result {
        child = pid
        let result = body()
        child = 0
        if requested { exitNow() }
        return result
    }

    /// Says so and exits with 128 + the signal, as the shell reports a program the signal ended.
    static func exitNow() -> Never {
        let message: StaticString = "\ntrail: interrupted\n"
        _ = write(2, message.utf8Start, message.utf8CodeUnitCount)
        _exit(128 + (signal == 0 ? SIGINT : signal))
    }
}
