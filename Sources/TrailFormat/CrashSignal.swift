/// The fatal signals the runtime's crash handler catches, and their names as crash blocks spell them
/// (`signal: 11 SIGSEGV ...`). The C writer's copy is `trail_signal_name` in Sources/CTrailShim/trail_format.h.
public enum CrashSignal {
    /// `SIGSEGV` for 11 (Linux numbers: the same on x86_64 and arm64); nil for a signal the handler does not
    /// catch.
    public static func name(_ number: Int32) -> String? {
        switch number {
        case 4: "SIGILL"
        case 5: "SIGTRAP"
        case 6: "SIGABRT"
        case 7: "SIGBUS"
        case 8: "SIGFPE"
        case 11: "SIGSEGV"
        default: nil
        }
    }
}
