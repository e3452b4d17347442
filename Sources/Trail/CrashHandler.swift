internal import CTrailShim
internal import TrailFormat

#if canImport(Glibc)
internal import Glibc
#endif

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
        /// The file that marks the crash (`<app>.<pid>.crash`); `acknowledgePreviousCrash()` deletes it.
        public let markerFile: String
        /// Every marker of this crash: its own and, while it is the newest, `<app>.crash`.
        let markerFiles: [String]

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
        for marker in foundCrash?.markerFiles ?? [] { unlink(marker) }
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
    public static func report(
        _ error: any Error, fatal: Bool = false, context: String? = nil,
        file: StaticString = #fileID, line: UInt = #line
    ) {
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

/// The fatal-signal handler and the crash markers: installed by `Trail.bootstrap` unless turned off.
enum CrashHandler {
    /// "<folder>/<app>": a crashed process records its crash at `<stem>.<pid>.crash`.
    static func markerStem(directory: String, app: String) -> String { "\(directory)/\(app)" }

    /// The markers of `app` in `directory`, newest crash first. Only regular files are read, without blocking
    /// (a FIFO planted at a marker's name is passed over).
    static func findMarkers(directory: String, app: String) -> [(path: String, marker: CrashMarker)] {
        let names = LogFolder.names(in: directory) ?? []
        let found = names.filter { CrashMarker.isMarkerName($0, app: app) }.compactMap {
            name -> (String, CrashMarker)? in
            let path = "\(directory)/\(name)"
            return readMarker(path).map { (path, $0) }
        }
        return found.sorted { ($0.1.time ?? "") > ($1.1.time ?? "") }
    }

    /// Reads the marker a crash left, before the log rotation moves the file it names.
    static func readMarker(_ path: String) -> CrashMarker? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        var bytes = [UInt8](repeating: 0, count: 16 << 10)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0, let marker = CrashMarker(parsing: String(decoding: bytes[..<count], as: UTF8.self)),
            marker.offset != nil
        else { return nil }
        return marker
    }

    /// The block starting at `offset` of `file`, up to its end line.
    static func readBlock(_ file: String, offset: Int) -> String? {
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        lseek(fd, off_t(offset), SEEK_SET)  // a seek that fails reads from the start, as it did
        var bytes = [UInt8](repeating: 0, count: 1 << 20)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { return nil }
            if got == 0 { break }
            count += got
        }
        return CrashBlockSyntax.leadingCrashBlock(String(decoding: bytes[..<count], as: UTF8.self))
    }

    /// Called by bootstrap once the log is open. Markers that named the log file that was current (`current`),
    /// now rotated to `rotatedTo`, are pointed at it; the newest crash whose block is found is this launch's
    /// previous crash. The others stay for `trail report --crash` and for later launches.
    static func adoptPreviousCrash(
        _ markers: [(path: String, marker: CrashMarker)], current: String?,
        rotatedTo: String?
    ) -> Trail.PreviousCrash? {
        var adopted: Trail.PreviousCrash?
        for (path, found) in markers {
            var moved = found
            if let rotatedTo, found.log == current {
                moved.log = rotatedTo
                writePrivateFile(path, moved.text)
            }
            guard adopted == nil, let offset = found.offset, let block = readBlock(moved.log, offset: offset) else {
                continue
            }
            // The newest crash has two markers, the same text: the process's own is the one to name.
            let same = markers.filter { $0.marker.pid == found.pid && $0.marker.time == found.time }.map(\.path)
            let own = same.first { $0.hasSuffix(".\(found.pid ?? 0)\(CrashMarker.fileExtension)") } ?? path
            adopted = Trail.PreviousCrash(
                logFile: moved.log, offset: offset, signal: found.signal, time: found.time ?? "",
                pid: found.pid ?? 0, block: block, markerFile: own, markerFiles: same)
        }
        return adopted
    }

    static func install(app: String, markerStem: String?, logFile: String?) {
        if let logFile { trail_crash_set_log_path(logFile) }
        _ = trail_crash_install(app, markerStem ?? "")
    }

    static func remember(_ crash: Trail.PreviousCrash?) {
        Trail.rememberCrash(crash)
    }
}

extension Trail {
    static func rememberCrash(_ crash: PreviousCrash?) { foundCrash = crash }
}
