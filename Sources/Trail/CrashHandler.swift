internal import CTrailShim

/// The fatal-signal handler: installed by `Trail.bootstrap` unless turned off.
enum CrashHandler {
    static func install() {
        _ = trail_crash_install()
    }
}
