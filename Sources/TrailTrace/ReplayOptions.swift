import TrailFormat

/// The calls as uftrace's `replay` prints them, streamed: one line per call, nested by depth, with durations,
/// threads interleaved by time. A call's opening line is printed when its first shown child is, so a call
/// with no shown children prints as one line, and what the options hide costs no memory. A process started by a
/// call of another in the set (ProcessTree) is printed inside that call, before its closing line.
///
///     # DURATION     TID     FUNCTION
///                 [  4242] | ItemStore.Store.create(name:value:) {
///        0.180 us [  4242] |   ItemStore.Store.validate(name:value:);
///        9.728 us [  4242] | } /* ItemStore.Store.create(name:value:) */
public struct ReplayOptions: Sendable {
    /// Show only calls matching, with what they call.
    public var filter: NamePattern?
    /// Hide calls matching, with what they call (uftrace's -N).
    public var exclude: NamePattern?
    /// Hide calls deeper than this below the shown roots.
    public var maxDepth: Int?
    /// Hide calls shorter than this (nanoseconds), with what they call.
    public var minDuration: Double?
    /// Show only these thread ids.
    public var threads: Set<UInt32>?
    /// Print source locations after entries.
    public var locations = false
    /// Add a PID column (several processes).
    public var showPid = false
    /// Colour as uftrace does: durations by size, the closing `/* name */` comments dimmed.
    public var colors = false

    public init() {}
}
