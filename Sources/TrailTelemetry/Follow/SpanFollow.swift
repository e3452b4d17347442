import Foundation
import TrailFormat
import TrailTrace

#if canImport(Glibc)
import Glibc
#endif

/// `trail export --otlp --follow`'s loop: one follower per trace, spans gathered per trace and sent together
/// every second (or when a batch is full), the cursor saved after each delivery.
public struct SpanFollow {
    let output: FollowOutput
    public let roots: [String]
    public private(set) var cursor: FollowCursor
    public var timing = FollowTiming()
    var export: TraceExport
    let sites = SiteTable()
    var traces: [String: FollowedTrace] = [:]
    /// Traces that could not be opened (not a trace, or not yet one), with why, said once: tried again at each
    /// look, since a file an older runtime is creating gets its header a moment later.
    var skipped: [String: String] = [:]
    var pending = 0
    var lastFlush = FollowTiming.now()
    /// Spans sent so far.
    public private(set) var sent = 0

    /// Follows the traces in `roots` (folders, whose new traces are followed too, or files), resuming from the
    /// cursor at `cursorPath`; `export` gives the resource's service and attributes.
    public init(output: FollowOutput, roots: [String], cursorPath: String, export: TraceExport) throws {
        self.output = output
        self.roots = roots
        cursor = try FollowCursor(path: cursorPath)
        self.export = export
    }

    /// `.trail-follow.json` in the first folder of `roots`, else beside the first trace.
    public static func defaultCursor(_ roots: [String]) -> String {
        roots.first(where: FollowPaths.isFolder).map { $0 + "/.trail-follow.json" } ?? roots[0] + ".follow.json"
    }

    /// Rounds until `stop` says so (SIGINT or SIGTERM, once `StopSignal.install` ran), then what is pending.
    public mutating func run(until stop: () -> Bool = { StopSignal.requested }) throws {
        while !stop() {
            if try step() == 0 { usleep(timing.idleMicroseconds) }
        }
        try flush()
        output.say("trail export: \(sent) spans sent; cursor saved in \(cursor.path)")
    }

    /// One round: new traces, what each wrote since, and a delivery when one is due; returns the bytes read.
    @discardableResult
    public mutating func step() throws -> Int {
        discover()
        var progress = 0
        for (path, followed) in traces where !followed.finished {
            progress += poll(path, followed)
        }
        if pending >= output.batch || (pending > 0 && FollowTiming.now() - lastFlush >= timing.flushInterval) {
            try flush()
        }
        return progress
    }

    /// New traces under the roots, opened once their header is there.
    mutating func discover() {
        var paths: [String] = []
        for root in roots {
            if FollowPaths.isFolder(root) {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
                paths += names.filter { $0.hasSuffix(".trace") }.sorted().map { root + "/" + $0 }
            } else if FileManager.default.fileExists(atPath: root) {
                paths.append(root)
            }
        }
        for path in paths where traces[path] == nil {
            let follower: TraceFollower
            do {
                follower = try TraceFollower(path: path, sites: sites)
            } catch {
                let reason = (error as? TraceFile.FormatError)?.description ?? "\(path): \(error)"
                if skipped[path] != reason {
                    output.say("trail export: skipping \(reason) (looked at again while it is there)")
                    skipped[path] = reason
                }
                continue
            }
            if skipped.removeValue(forKey: path) != nil { output.say("trail export: following \(path) now") }
            let identity = "\(follower.file.startWallNanoseconds)-\(follower.file.pid)"
            let entry = cursor.entries[path]
            if let entry, entry.identity == identity, entry.done { continue }
            let followed = FollowedTrace(follower: follower, identity: identity)
            if let entry, entry.identity == identity {
                followed.skipBefore = entry.position
                followed.skipAt = entry.sentAtPosition
                followed.lastExit = entry.position
                followed.atLastExit = entry.sentAtPosition
            }
            followed.selection = followed.gathering(export)
            traces[path] = followed
        }
    }

    /// Reads what the trace's process wrote since; a trace that ended (or whose process is gone and that stayed
    /// quiet for `timing.settle`) is finished, its open calls sent as unfinished.
    mutating func poll(_ path: String, _ followed: FollowedTrace) -> Int {
        let before = followed.spans.count
        // A MiB at a time (some 30,000 calls): after an outage the files hold minutes of spans, and memory
        // holds what one read gathers until it is sent.
        let read = followed.follower.poll(into: &followed.selection, limit: 1 << 20)
        if read > 0 { followed.quietSince = FollowTiming.now() }
        let gone = kill(pid_t(followed.follower.file.pid), 0) != 0 && errno == ESRCH
        if read == 0,
            followed.follower.ended || (gone && FollowTiming.now() - followed.quietSince > timing.settle)
        {
            followed.follower.finish(into: &followed.selection)
            followed.finished = true
        }
        pending += followed.spans.count - before
        return read
    }

    /// Sends every gathered span, a resource per trace, then records what was sent.
    public mutating func flush() throws {
        lastFlush = FollowTiming.now()
        guard pending > 0 || traces.values.contains(where: \.finished) else { return }
        let writer = OTLPWriter<Span>(sink: output.sink, batchSize: output.batch)
        for (_, followed) in traces where !followed.spans.isEmpty {
            try writer.beginResource(export.resource(of: followed.follower.file))
            for span in followed.spans { try writer.add(span) }
            try writer.endResource()
        }
        try writer.flush()
        for (path, followed) in traces {
            sent += followed.spans.count
            followed.spans.removeAll(keepingCapacity: true)
            cursor.entries[path] = FollowCursor.Entry(
                identity: followed.identity, position: followed.lastExit, sentAtPosition: followed.atLastExit,
                done: followed.finished)
        }
        pending = 0
        cursor.saveOrSay(output.say)
        // Finished traces are done with: their memory goes, the cursor remembers them.
        traces = traces.filter { !$0.value.finished }
    }
}
