#if canImport(Glibc)
import Glibc
#endif

/// A second thread for a batch of addresses. Over thousands of addresses, demangling names takes about half as
/// long as reading DWARF, and needs nothing from the readers: names go here as frames first use them. Ahead
/// of that, it reads the units the batch will need (their `UnitTables`, with a reader of its own) from the
/// last one needed, while the caller loads from the first as its addresses come; a unit either
/// claims is the other's to skip. `finish` demangles what is left on both threads and stops the thread.
final class BatchWorker: @unchecked Sendable {
    /// A unit's tables read here; nil fields where the reader could not, and the caller reads them its way.
    struct Prepared {
        var tables: UnitTables?
        /// The unit's abbreviation table, and its offset.
        var abbreviations: (table: Abbreviations, offset: UInt64)?
    }

    private enum Claim: UInt8 { case open, worker, done, caller }

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// For the worker: a name came or the batch finished. For the caller: a unit is ready, or the worker idles.
    private let work = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let ready = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var reader: DIEReader?
    /// The units to walk in the order the caller first needs them; by unit number, header offsets and who has
    /// the unit.
    private let order: [Int]
    private let starts: [UInt64]
    private var remaining: Int
    private var claims: [Claim]
    private var prepared: [Prepared?]
    private var pending: [(id: Int32, name: UnsafePointer<CChar>)] = []
    /// Into `pending`: the next name to take.
    private var next = 0
    private var results: [(id: Int32, display: [UInt8])] = []
    /// Names being demangled outside the lock.
    private var busy = 0
    private var finished = false
    private var thread: pthread_t?

    /// `order`: unit numbers; `starts`: every unit's header offset.
    init(reader: DIEReader?, order: [Int], starts: [UInt64]) {
        self.reader = reader
        self.order = order
        self.starts = starts
        remaining = order.count
        claims = Array(repeating: .open, count: starts.count)
        prepared = Array(repeating: nil, count: starts.count)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(work, nil)
        pthread_cond_init(ready, nil)
        thread = SideThread.start(named: "trail-batch") { self.run() }  // no thread: the caller does it all
    }

    deinit {
        pthread_cond_destroy(work)
        pthread_cond_destroy(ready)
        pthread_mutex_destroy(mutex)
        work.deallocate()
        ready.deallocate()
        mutex.deallocate()
    }

    /// Names wait here and go to the worker some at a time: waking it per name cost more than demangling.
    private var gathered: [(id: Int32, name: UnsafePointer<CChar>)] = []

    func add(_ id: Int32, _ name: UnsafePointer<CChar>) {
        gathered.append((id, name))
        if gathered.count >= 32 { handOver() }
    }

    private func handOver() {
        pthread_mutex_lock(mutex)
        pending += gathered
        pthread_cond_signal(work)
        pthread_mutex_unlock(mutex)
        gathered.removeAll(keepingCapacity: true)
    }

    /// Whether the worker is reading the unit now.
    func isReading(_ unit: Int) -> Bool {
        guard unit < claims.count else { return false }
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return claims[unit] == .worker
    }

    /// A unit the worker read, waiting if it is at it; nil when the caller is to read it (then the worker won't).
    func claim(_ unit: Int) -> Prepared? {
        guard unit < claims.count else { return nil }
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while claims[unit] == .worker { pthread_cond_wait(ready, mutex) }
        if claims[unit] == .open { claims[unit] = .caller }
        return prepared[unit]
    }

    /// Demangles what is still pending on this thread too, waits for the worker and stops it.
    func finish() -> [(id: Int32, display: [UInt8])] {
        if !gathered.isEmpty { handOver() }
        pthread_mutex_lock(mutex)
        finished = true
        pthread_cond_signal(work)
        while demangleOne() {}
        while busy > 0 { pthread_cond_wait(ready, mutex) }
        let done = results
        pthread_mutex_unlock(mutex)
        if let thread { pthread_join(thread, nil) }
        thread = nil
        return done
    }

    private func run() {
        pthread_mutex_lock(mutex)
        while true {
            if prepareOne() || demangleOne() { continue }
            if finished { break }
            pthread_cond_wait(work, mutex)
        }
        pthread_mutex_unlock(mutex)
    }

    /// With the lock held: reads the last unit no one has claimed, with the lock released; false when none is left.
    private func prepareOne() -> Bool {
        while remaining > 0, claims[order[remaining - 1]] != .open { remaining -= 1 }
        guard remaining > 0 else { return false }
        remaining -= 1
        let unit = order[remaining]
        claims[unit] = .worker
        pthread_mutex_unlock(mutex)
        var tables: Prepared?
        if reader != nil, let header = reader!.unit(at: starts[unit]) {
            tables = Prepared(tables: UnitTables(header, reader: &reader!))
            tables!.abbreviations = (reader!.abbreviations(header), header.abbrevOffset)
        }
        pthread_mutex_lock(mutex)
        prepared[unit] = tables
        claims[unit] = .done
        pthread_cond_broadcast(ready)
        return true
    }

    /// With the lock held: demangles the next pending name with the lock released; false when none is pending.
    private func demangleOne() -> Bool {
        guard next < pending.count else { return false }
        let item = pending[next]
        next += 1
        busy += 1
        pthread_mutex_unlock(mutex)
        let display = Demangler.shared.demangleOnce(item.name)
        pthread_mutex_lock(mutex)
        results.append((item.id, display))
        busy -= 1
        if busy == 0, finished { pthread_cond_broadcast(ready) }
        return true
    }
}
