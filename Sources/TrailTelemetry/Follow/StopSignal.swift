#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM ask a follow loop to stop after its next delivery.
public enum StopSignal {
    nonisolated(unsafe) private static var flag: sig_atomic_t = 0
    public static var requested: Bool { flag != 0 }

    /// Also unblocks them: a parent that starts this with signals blocked (Foundation's `Process` from a
    /// Dispatch thread does) would otherwise leave the sidecar deaf to `terminate()`.
    public static func install() {
        signal(SIGINT) { _ in StopSignal.flag = 1 }
        signal(SIGTERM) { _ in StopSignal.flag = 1 }
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        sigprocmask(SIG_UNBLOCK, &set, nil)
    }

    /// Forgets a request and gives both signals their default action again (for tests).
    public static func reset() {
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        flag = 0
    }
}
