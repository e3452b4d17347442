import Foundation
import TrailCommandLine
import TrailFormat
import TrailTelemetry
import TrailTrace

#if canImport(Glibc)
import Glibc
#endif

let followDetails = """
    --follow: keep reading traces while their processes write them (a folder's new traces too) and send each \
    span once its call has ended, within about a second. A cursor (--cursor, else .trail-follow.json in the \
    first folder) records what the receiver took, so a restart goes on without repeating or skipping a span. A \
    receiver that is down is waited for with backoff: the trace files hold what is not sent yet, and memory stays \
    bounded. SIGINT or SIGTERM sends what is pending, saves the cursor and stops.
    """

/// `trail export --otlp --follow`: a sidecar that ships spans as calls end.
func followSpans(_ arguments: ParsedArguments) throws -> Int32 {
    guard arguments.value("output") == nil else {
        throw UsageError(
            description:
                "--follow sends to an OTLP endpoint (--endpoint or OTEL_EXPORTER_OTLP_ENDPOINT) or standard output, not to a file"
        )
    }
    let destination = try OTLPDestination(arguments, signal: .traces)
    var follow = try Follow(destination: destination, arguments: arguments)
    try follow.run()
    return 0
}

/// The follow loop: one follower per trace, spans gathered per trace and sent together every second (or when a
/// batch is full), the cursor saved after each delivery.
struct Follow {
    let destination: OTLPDestination
    let roots: [String]
    var cursor: FollowCursor
    let cursorPath: String
    var export = TraceExport()
    let sites = SiteTable()
    var traces: [String: Followed] = [:]
    /// Traces that could not be opened (not a trace, or not yet one), with why, said once: tried again at each
    /// look, since a file an older runtime is creating gets its header a moment later.
    var skipped: [String: String] = [:]
    var pending = 0
    var lastFlush = monotonicSeconds()
    var sent = 0

    /// One trace being followed, and what of it waits to be sent.
    final class Followed {
        let follower: TraceFollower
        let identity: String
        var selection: SpanSelection
        var spans: [Span] = []
        /// The exit time of the last span gathered, and how many gathered spans end at it.
        var lastExit: UInt64 = 0
        var atLastExit = 0
        /// Spans to skip again after a restart: those ending before `skipBefore`, and the first `skipAt` ending
        /// at it.
        var skipBefore: UInt64 = 0
        var skipAt = 0
        var quietSince = monotonicSeconds()
        var finished = false

        init(follower: TraceFollower, identity: String, selection: SpanSelection) {
            self.follower = follower
            self.identity = identity
            self.selection = selection
        }
    }

    init(destination: OTLPDestination, arguments: ParsedArguments) throws {
        self.destination = destination
        roots = arguments.positionals.isEmpty ? ["trail-traces"] : arguments.positionals
        let firstFolder = roots.first { isFolder($0) }
        cursorPath =
            arguments.value("cursor") ?? (firstFolder.map { $0 + "/.trail-follow.json" } ?? roots[0] + ".follow.json")
        cursor = try FollowCursor(path: cursorPath)
        export.serviceName = destination.settings.serviceName
        export.resourceAttributes = destination.settings.resourceAttributes
    }

    mutating func run() throws {
        destination.keepTrying()
        Stop.install()
        printError(
            "trail export: following \(roots.joined(separator: ", ")) to \(destination.name); cursor \(cursorPath)")
        while !Stop.requested {
            discover()
            var progress = 0
            for (path, followed) in traces where !followed.finished {
                progress += poll(path, followed)
            }
            if pending >= destination.batch || (pending > 0 && monotonicSeconds() - lastFlush >= 1) { try flush() }
            if progress == 0 { usleep(200_000) }
        }
        try flush()
        printError("trail export: \(sent) spans sent; cursor saved in \(cursorPath)")
    }

    /// New traces under the roots, opened once their header is there.
    mutating func discover() {
        var paths: [String] = []
        for root in roots {
            if isFolder(root) {
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
                    printError("trail export: skipping \(reason) (looked at again while it is there)")
                    skipped[path] = reason
                }
                continue
            }
            if skipped.removeValue(forKey: path) != nil { printError("trail export: following \(path) now") }
            let identity = "\(follower.file.startWallNanoseconds)-\(follower.file.pid)"
            let entry = cursor.entries[path]
            if let entry, entry.identity == identity, entry.done { continue }
            let followed = Followed(
                follower: follower, identity: identity,
                selection: SpanSelection(
                    beginProcess: { _ in }, span: { _, _ in },
                    endProcess: { _ in }))
            if let entry, entry.identity == identity {
                followed.skipBefore = entry.position
                followed.skipAt = entry.sentAtPosition
                followed.lastExit = entry.position
                followed.atLastExit = entry.sentAtPosition
            }
            followed.selection = makeSelection(followed)
            traces[path] = followed
        }
    }

    /// A selection that gathers the trace's spans, skipping those a previous run sent.
    func makeSelection(_ followed: Followed) -> SpanSelection {
        let export = self.export
        var ids: TraceExport.ProcessIDs?
        var selection = SpanSelection(
            beginProcess: { process in ids = TraceExport.ProcessIDs(process.file) },
            span: { [unowned followed] selected, process in
                let end = selected.call.end
                if end < followed.skipBefore { return }
                if end == followed.skipBefore, followed.skipAt > 0 {
                    followed.skipAt -= 1
                    return
                }
                guard let ids else { return }
                followed.spans.append(export.span(selected, process, ids: ids, exception: nil))
                if end == followed.lastExit {
                    followed.atLastExit += 1
                } else {
                    (followed.lastExit, followed.atLastExit) = (end, 1)
                }
            },
            endProcess: { _ in })
        selection.minDuration = export.minDuration
        selection.filter = export.filter
        selection.fold = export.fold
        return selection
    }

    /// Reads what the trace's process wrote since; a trace that ended (or whose process is gone and that stayed
    /// quiet for 2 s) is finished, its open calls sent as unfinished.
    mutating func poll(_ path: String, _ followed: Followed) -> Int {
        let before = followed.spans.count
        // A MiB at a time (some 30,000 calls): after an outage the files hold minutes of spans, and memory
        // holds what one read gathers until it is sent.
        let read = followed.follower.poll(into: &followed.selection, limit: 1 << 20)
        if read > 0 { followed.quietSince = monotonicSeconds() }
        let gone = kill(pid_t(followed.follower.file.pid), 0) != 0 && errno == ESRCH
        if read == 0, followed.follower.ended || (gone && monotonicSeconds() - followed.quietSince > 2) {
            followed.follower.finish(into: &followed.selection)
            followed.finished = true
        }
        pending += followed.spans.count - before
        return read
    }

    /// Sends every gathered span, a resource per trace, then records what was sent.
    mutating func flush() throws {
        lastFlush = monotonicSeconds()
        guard pending > 0 || traces.values.contains(where: \.finished) else { return }
        let writer = OTLPWriter<Span>(sink: destination.sink, batchSize: destination.batch)
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
        cursor.saveOrSay()
        // Finished traces are done with: their memory goes, the cursor remembers them.
        traces = traces.filter { !$0.value.finished }
    }
}

func isFolder(_ path: String) -> Bool {
    var folder: ObjCBool = false
    return FileManager.default.fileExists(atPath: path, isDirectory: &folder) && folder.boolValue
}

func monotonicSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// SIGINT and SIGTERM ask the loop to stop after its next delivery.
enum Stop {
    nonisolated(unsafe) static var flag: sig_atomic_t = 0
    static var requested: Bool { flag != 0 }

    /// Also unblocks them: a parent that starts this with signals blocked (Foundation's `Process` from a
    /// Dispatch thread does) would otherwise leave the sidecar deaf to `terminate()`.
    static func install() {
        signal(SIGINT) { _ in Stop.flag = 1 }
        signal(SIGTERM) { _ in Stop.flag = 1 }
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        sigprocmask(SIG_UNBLOCK, &set, nil)
    }
}
