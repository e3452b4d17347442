#if canImport(Glibc)
import Glibc
#endif

/// A thread meant to run beside its creator, started on another CPU. Linux puts a new thread on its creator's
/// CPU even when another is idle; there it waits until the creator's time slice ends or the balancer moves it,
/// 2–4 ms on a 2-CPU machine, longer than a whole batch of 2,000 addresses takes. So the thread is created
/// pinned to the next CPU the process may use, and given the process's whole set of CPUs back once it runs.
enum SideThread {
    /// Runs `body` on a new thread named `name` (as `top -H` and profilers show it, 15 bytes kept); nil when no
    /// thread could be started.
    static func start(named name: String, _ body: @escaping () -> Void) -> pthread_t? {
        // Named by the thread itself before `body`: a name set from here could come after `body` began, which
        // then ran under its creator's name.
        let short = String(name.utf8.prefix(15)) ?? ""
        return start {
            _ = setThreadName(pthread_self(), short)
            body()
        }
    }

    /// Runs `body` on a new thread; nil when no thread could be started.
    static func start(_ body: @escaping () -> Void) -> pthread_t? {
        if let allowed = allowedCPUs(), let other = nextCPU(after: currentCPU(), in: allowed) {
            var one = [UInt64](repeating: 0, count: maskWords)
            one[other / 64] = 1 << UInt64(other % 64)
            if let thread = create(body, pinnedTo: one, then: allowed) { return thread }
        }
        // One CPU, or the pinned start was refused (a CPU gone offline): started where Linux puts it.
        return create(body, pinnedTo: nil, then: nil)
    }

    private static func create(_ body: @escaping () -> Void, pinnedTo cpus: [UInt64]?, then allowed: [UInt64]?)
        -> pthread_t?
    {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        if let cpus, setThreadAffinity(&attributes, cpus.count * 8, cpus) != 0 { return nil }
        let box = Unmanaged.passRetained(Start(body: body, allowed: allowed)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, &attributes,
            { raw in
                let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
                if let allowed = start.allowed { _ = setCPUs(0, allowed.count * 8, allowed) }
                start.body()
                return nil
            }, box)
        guard status == 0 else {
            Unmanaged<Start>.fromOpaque(box).release()
            return nil
        }
        return thread
    }

    /// The CPU the calling thread runs on.
    static func currentCPU() -> Int { Int(runningCPU()) }

    /// The calling thread's CPUs, as the words of a bit mask; nil when they cannot be read.
    static func allowedCPUs() -> [UInt64]? {
        var mask = [UInt64](repeating: 0, count: maskWords)
        return getCPUs(0, mask.count * 8, &mask) == 0 ? mask : nil
    }

    /// The CPU after `current` in the mask, wrapping around; nil when the mask holds no other.
    static func nextCPU(after current: Int, in mask: [UInt64]) -> Int? {
        let count = mask.count * 64
        guard current >= 0, current < count else { return nil }
        for step in 1 ..< count {
            let cpu = (current + step) % count
            if mask[cpu / 64] & (1 << UInt64(cpu % 64)) != 0 { return cpu }
        }
        return nil
    }

    /// Words of a `cpu_set_t`: 1,024 CPUs. On a machine with more, `sched_getaffinity` fails and nothing is pinned.
    private static let maskWords = 16

    private final class Start {
        let body: () -> Void
        let allowed: [UInt64]?
        init(body: @escaping () -> Void, allowed: [UInt64]?) {
            self.body = body
            self.allowed = allowed
        }
    }
}

// GNU extensions, which Swift's Glibc module leaves out (it is built without _GNU_SOURCE); a `cpu_set_t` is
// passed as the words of its bit mask.
@_silgen_name("pthread_setname_np")
private func setThreadName(_ thread: pthread_t, _ name: UnsafePointer<CChar>) -> Int32

@_silgen_name("sched_getcpu")
private func runningCPU() -> Int32

@_silgen_name("sched_getaffinity")
private func getCPUs(_ pid: pid_t, _ size: Int, _ mask: UnsafeMutablePointer<UInt64>) -> Int32

@_silgen_name("sched_setaffinity")
private func setCPUs(_ pid: pid_t, _ size: Int, _ mask: UnsafePointer<UInt64>) -> Int32

@_silgen_name("pthread_attr_setaffinity_np")
private func setThreadAffinity(
    _ attributes: UnsafeMutablePointer<pthread_attr_t>, _ size: Int, _ mask: UnsafePointer<UInt64>
) -> Int32
