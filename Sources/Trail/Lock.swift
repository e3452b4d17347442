#if canImport(Glibc)
internal import Glibc
#endif

/// A pthread mutex. The logger's fork handlers lock in one call and unlock in another, which a scoped lock
/// (Synchronization's `Mutex`) cannot do. A class, so that the mutex never moves once initialized.
final class Lock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init() {
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }

    func unlock() { pthread_mutex_unlock(mutex) }

    /// True when the lock was free and is now held.
    func tryLock() -> Bool { pthread_mutex_trylock(mutex) == 0 }

    func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}
