#if canImport(Glibc)
import Glibc
#endif

/// A thread whose work its creator waits for (`join`), which also makes everything the thread wrote visible to
/// the creator: what is handed over needs no lock.
final class JoinedThread {
    private var thread = pthread_t()
    private var joined = false

    /// Starts `body`; nil when no thread could be started.
    init?(_ body: @escaping () -> Void) {
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        let status = pthread_create(
            &thread, nil,
            { raw in
                Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            }, box)
        guard status == 0 else {
            Unmanaged<Body>.fromOpaque(box).release()
            return nil
        }
    }

    deinit { join() }

    /// Waits until the body has returned.
    func join() {
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }

    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }
}
