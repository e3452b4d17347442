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

        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts `body` on a thread of its own named `name` (15 bytes kept). Nothing starts if no thread can be made.
    static func start(named name: String, _ body: @escaping @Sendable () -> Void) {
        let start = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
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
                // A write of Trail's past RLIMIT_FSIZE must fail with EFBIG here, never kill the program.
                trail_block_file_size_signal()
                start.body()
                return nil
            }, start)
        if result != 0 { Unmanaged<Start>.fromOpaque(start).release() }
    }
}
