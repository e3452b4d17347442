internal import Synchronization

/// What a tracer (TrailTracing) says a log line's span is, when its own context is in effect: Trail knows
/// traced calls only, and a span with a parent in another process puts the calls under it in that process's
/// trace. Installed once; log lines then ask it on every JSON line.
public enum LogSpanContext {
    /// Given the innermost traced call's exported span id (0: none), the trace id (16 bytes) and span id a line
    /// should name, or nil for the call's own.
    public typealias Provider = @Sendable (_ callSpanID: UInt64) -> (traceID: [UInt8], spanID: UInt64)?

    private static let installed = Atomic<Bool>(false)
    private static let claimed = Atomic<Bool>(false)
    nonisolated(unsafe) private static var provider: Provider?

    /// The first call wins: the provider is written once, before readers are told it is there.
    public static func install(_ provider: @escaping Provider) {
        guard !claimed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = Trail.contextHookInstalled
        self.provider = provider
        installed.store(true, ordering: .releasing)
    }

    static var current: Provider? { installed.load(ordering: .acquiring) ? provider : nil }
}
