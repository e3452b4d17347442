#if canImport(Glibc)
internal import Glibc
#endif

/// A pthread mutex and a condition variable under it. Timed waits run on the monotonic clock: a step of the
/// wall clock (NTP, a manual change) neither stalls nor hurries the flusher.
final class Condition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }

    func unlock() { pthread_mutex_unlock(mutex) }

    /// True when the lock was free and is now held.
    func tryLock() -> Bool { pthread_mutex_trylock(mutex) == 0 }

    /// Requires the lock. Wakes one waiter.
    func signal() { pthread_cond_signal(condition) }

    /// Requires the lock. Waits until signalled, `seconds` pass, or a spurious wake-up; false when the time ran out.
    @discardableResult
    func wait(seconds: Double) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let nanoseconds = Int(deadline.tv_nsec) + Int(max(0, seconds) * 1e9)
        deadline.tv_sec += nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        return pthread_cond_timedwait(condition, mutex, &deadline) == 0
    }
}
