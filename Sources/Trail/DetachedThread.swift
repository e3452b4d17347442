internal import CTrailShim

#if canImport(Glibc)
internal import Glibc
#endif

/// The logger's own threads (the flusher, the stderr drain): detached, as Foundation's `Thread` made them, and
/// named, as `top`, debuggers and crash blocks show them.
enum DetachedThread {
    /// What the new thread runs, handed over through `pthread_create`'s one pointer.
    private final class Start {
        let name: String
        let body: @Sendable () -> Void
        /// Raised once the thread has its name and signal mask.
        let running = UnsafeMutablePointer<UInt32>.allocate(capacity: 1)

        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
            running.initialize(to: 0)
        }

        deinit { running.deallocate() }
    }

    /// Starts `body` on a thread of its own named `name` (15 bytes kept), and returns once it runs (up to 1 s).
    /// Nothing starts if no thread can be made.
    ///
    /// A thread starts with every signal blocked until it sets its own mask: one not yet scheduled when the
    /// program crashes soon after start-up (a loaded machine) is one the Swift backtracer cannot pause, and its
    /// report then warns "failed to suspend thread" (9 crashes in 40 right after `bootstrap`, two busy cores).
    static func start(named name: String, _ body: @escaping @Sendable () -> Void) {
        let start = Start(name: name, body: body)
        let handle = Unmanaged.passRetained(start).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let result = pthread_create(
            &thread, &attributes,
            { raw in
                let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
                trail_set_thread_name(start.name)
                // Never the program's signals (sigwait servers, SIGTERM), nor SIGXFSZ of a write past RLIMIT_FSIZE.
                trail_block_program_signals()
                trail_flag_raise(start.running)
                start.body()
                return nil
            }, handle)
        guard result == 0 else { return Unmanaged<Start>.fromOpaque(handle).release() }
        _ = trail_flag_wait(start.running, 1000)
    }
}
