#if canImport(Glibc)
internal import Glibc
#endif

/// Seconds on CLOCK_MONOTONIC, for intervals: unlike the wall clock it never steps back or jumps ahead.
enum MonotonicClock {
    static var seconds: Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
