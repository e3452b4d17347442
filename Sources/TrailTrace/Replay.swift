/// The call tree as uftrace's `replay` prints it: one line per call, nested by depth, with durations.
///
///     # DURATION     TID     FUNCTION
///                 [  4242] | ItemStore.Store.create(name:value:) {
///        0.180 us [  4242] |   ItemStore.Store.validate(name:value:);
///        9.728 us [  4242] | } /* ItemStore.Store.create(name:value:) */
public struct ReplayOptions: Sendable {
    /// Show only calls matching, with what they call.
    public var filter: NamePattern?
    /// Hide calls deeper than this below the shown roots.
    public var maxDepth: Int?
    /// Hide calls shorter than this (nanoseconds), with what they call.
    public var minDuration: Double?
    /// Show only these thread ids.
    public var threads: Set<UInt32>?
    /// Print source locations after entries.
    public var locations = false

    public init() {}
}

public enum Replay {
    public static func render(_ tree: CallTree, _ options: ReplayOptions = ReplayOptions()) -> String {
        var out = "# DURATION     TID     FUNCTION\n"
        var emitted = 0
        func tid(_ thread: Int) -> String {
            let text = String(tree.threads[thread].tid)
            return "[" + String(repeating: " ", count: max(0, 6 - text.count)) + text + "]"
        }
        func visible(_ index: Int) -> Bool {
            let call = tree.calls[index]
            if let threads = options.threads, !threads.contains(tree.threads[call.thread].tid) { return false }
            if let minimum = options.minDuration, (call.duration ?? .infinity) < minimum { return false }
            return true
        }
        func show(_ index: Int, depth: Int) {
            guard visible(index) else { return }
            if let maxDepth = options.maxDepth, depth >= maxDepth { return }
            let call = tree.calls[index]
            let site = tree.sites[call.site]
            let indent = String(repeating: "  ", count: depth)
            let children = call.children.filter { child in
                visible(child) && (options.maxDepth.map { depth + 1 < $0 } ?? true)
            }
            var note = call.isAsync ? " [async]" : ""
            if let exit = call.exitThread { note += " [returned on \(tree.threads[exit].tid)]" }
            if options.locations, !site.location.isEmpty { note += " (\(site.location))" }
            let duration = call.duration.map(DurationFormat.format) ?? "  (running)"
            if children.isEmpty {
                out += "\(duration) \(tid(call.thread)) | \(indent)\(site.name);\(note)\n"
            } else {
                out += "           \(tid(call.thread)) | \(indent)\(site.name) {\(note)\n"
                for child in children { show(child, depth: depth + 1) }
                out += "\(duration) \(tid(call.thread)) | \(indent)} /* \(site.name) */\n"
            }
            emitted += 1
        }
        // With a filter, each matching call starts a subtree of its own.
        if let filter = options.filter {
            var covered = Set<Int>()
            tree.walk { index in
                guard filter.matches(tree.sites[tree.calls[index].site].name) else { return }
                var ancestor = tree.calls[index].parent
                while let current = ancestor {
                    if covered.contains(current) { return }
                    ancestor = tree.calls[current].parent
                }
                covered.insert(index)
                show(index, depth: 0)
            }
        } else {
            for root in tree.roots { show(root, depth: 0) }
        }
        return out
    }
}
