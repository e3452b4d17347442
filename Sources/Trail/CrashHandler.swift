#if canImport(Glibc)
import Glibc
#endif
import Foundation
internal import CTrailShim
internal import TrailFormat

extension Trail {
    /// The crash the previous run of this program ended with, found by `bootstrap`: the seed of a "sorry, we
    /// crashed last time" launch path. `trail report --crash <log folder>` turns it into a full report.
    public struct PreviousCrash: Sendable {
        /// The log file that holds the crash block now (rotated since: `app.1.log`).
        public let logFile: String
        /// Where the block starts in that file.
        public let offset: Int
        /// The signal, or nil for a fatal `Trail.report`.
        public let signal: Int32?
        public let time: String
        public let pid: Int
        /// The crash block itself (Docs/crash-format.md): raw addresses, images and breadcrumbs.
        public let block: String
        /// The file that marks the crash; `acknowledgePreviousCrash()` deletes it.
        public let markerFile: String

        /// "SIGSEGV at 2026-12-02T11:36:51.123456Z (pid 4242)".
        public var summary: String {
            let what = signal.map { CrashSignal.name($0) ?? "signal \($0)" } ?? "fatal error"
            return "\(what) at \(time) (pid \(pid))"
        }
    }

    nonisolated(unsafe) private static var foundCrash: PreviousCrash?

    /// Set once `bootstrap` has looked for a crash marker.
    public static var previousCrash: PreviousCrash? { foundCrash }

    /// Forgets the previous crash: the next launch will not see it again.
    public static func acknowledgePreviousCrash() {
        if let marker = foundCrash?.markerFile { unlink(marker) }
        foundCrash = nil
    }

    /// Names the calling thread (up to 15 bytes), as traces, crash blocks and debuggers show it.
    public static func nameThread(_ name: String) {
        trail_set_thread_name(name)
    }

    /// The exit status of a fatal `report`: EX_SOFTWARE, distinct from a signal's 128+n.
    public static let fatalReportStatus: Int32 = 70

    /// Logs an error with its context and the current stack, as a block `trail symbolize` can read. A fatal
    /// one is recorded as this run's crash and ends the process with status `fatalReportStatus`.
    public static func report(_ error: any Error, fatal: Bool = false, context: String? = nil,
                              file: StaticString = #fileID, line: UInt = #line) {
        var reason = "\(type(of: error)): \(error)"
        if let context { reason += " (\(context))" }
        let logger = Logger(label: "trail")
        if fatal {
            logger.critical("fatal error reported: \(reason)", file: file, line: line)
        } else {
            logger.error("error reported: \(reason)", file: file, line: line)
        }
        LogSink.shared.flush()
        reason += " at \(file):\(line)"
        trail_crash_report(reason, fatal ? 1 : 0)
        guard fatal else { return }
        Glibc.exit(fatalReportStatus)
    }
}

/// The fatal-signal handler and the crash marker: installed by `Trail.bootstrap` unless turned off.
enum CrashHandler {
    static func markerPath(directory: String, stem: String) -> String { "\(directory)/\(stem)\(CrashMarker.fileExtension)" }

    /// Reads the marker a crash left, before the log rotation moves the file it names.
    static func readMarker(_ path: String) -> CrashMarker? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8), let marker = CrashMarker(parsing: text),
              marker.offset != nil else { return nil }
        return marker
    }

    /// The block starting at `offset` of `file`, up to its end line.
    static func readBlock(_ file: String, offset: Int) -> String? {
        guard let handle = FileHandle(forReadingAtPath: file) else { return nil }
        defer { try? handle.close() }
        try? handle.seek(toOffset: UInt64(offset))
        guard let data = try? handle.read(upToCount: 1 << 20) else { return nil }
        return CrashBlockSyntax.leadingCrashBlock(String(decoding: data, as: UTF8.self))
    }

    /// Called by bootstrap. `rotatedTo` is where the log named in the marker now is, if it moved.
    static func adoptPreviousCrash(marker: String, found: CrashMarker, rotatedTo: String?) -> Trail.PreviousCrash? {
        var moved = found
        moved.log = rotatedTo ?? found.log
        let offset = found.offset ?? 0, time = found.time ?? "", pid = found.pid ?? 0
        guard let block = readBlock(moved.log, offset: offset) else { return nil }
        // Keep the marker pointing at the block where it now is.
        writePrivateFile(marker, moved.text)
        return Trail.PreviousCrash(logFile: moved.log, offset: offset, signal: found.signal, time: time,
                                   pid: pid, block: block, markerFile: marker)
    }

    static func install(app: String, marker: String, logFile: String?) {
        if let logFile { trail_crash_set_log_path(logFile) }
        _ = trail_crash_install(app, marker)
    }

    static func remember(_ crash: Trail.PreviousCrash?) {
        Trail.rememberCrash(crash)
    }
}

extension Trail {
    static func rememberCrash(_ crash: PreviousCrash?) { foundCrash = crash }
}
