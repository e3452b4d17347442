#if canImport(Glibc)
import Glibc
#endif

/// How long a follower waits: between deliveries, and before a file that stopped growing is done (a trace whose
/// process is gone, a log file rotated away). Tests make them short.
public struct FollowTiming: Sendable {
    /// Seconds between deliveries of what was gathered (a full batch goes at once).
    public var flushInterval = 1.0
    /// Seconds a finished-looking file stays quiet before it is done with.
    public var settle = 2.0
    /// Microseconds slept when a round read nothing.
    public var idleMicroseconds: UInt32 = 200_000

    public init() {}

    /// Monotonic seconds, for intervals.
    public static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
