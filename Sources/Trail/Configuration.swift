#if canImport(Glibc)
internal import Glibc
#endif

extension Trail {
    /// How the runtime logs. Environment variables, when set, override what the code says, so operators
    /// can change a deployed program's logging without rebuilding it.
    public struct Configuration: Sendable {
        @frozen
        public enum Destination: String, Sendable, CaseIterable {
            /// The console when stderr is a terminal (development), else the file (deployment).
            case automatic
            /// Lines go to stderr; nothing is redirected. (`TRAIL_LOG=console`)
            case console
            /// Lines go to the rotating file, and fd 2 points at it. (`TRAIL_LOG=file`)
            case file
            /// Both: the file as above, and a copy of each logger line on the original stderr. (`TRAIL_LOG=tee`)
            case tee
        }

        /// How a line is written. (`TRAIL_LOG_FORMAT`)
        @frozen
        public enum LineFormat: String, Sendable, CaseIterable {
            /// `2026-12-02T11:36:51.123456Z info store: added X value=40 (App/Store.swift:42)`.
            case text
            /// One JSON object per line (Docs/log-format.md), for the Collector's filelog receiver, Vector, Fluent Bit.
            case json
        }

        /// Names the files: `<appName>.log`. Defaults to the executable's name.
        public var appName: String
        /// Goes into crash blocks and reports. (`TRAIL_APP_VERSION`)
        public var appVersion: String?
        /// Defaults to `TRAIL_LOG_DIR`, else `$XDG_STATE_HOME/<appName>` (`~/.local/state/<appName>`; without
        /// HOME, `<tmp>/trail-<uid>/<appName>`, in a folder only this user can write).
        public var directory: String?
        public var destination: Destination = .automatic
        public var lineFormat: LineFormat = .text
        /// New loggers' level. (`TRAIL_LOG_LEVEL`)
        public var level: Logger.Level = .info
        /// Rotate when the file reaches this size. (`TRAIL_LOG_MAX_SIZE`, e.g. 10M)
        public var maxFileSize = 10 << 20
        /// Rotate when the file is this old, in seconds. (`TRAIL_LOG_MAX_AGE`, e.g. 3600, 1h, 1d)
        public var maxFileAge: Double?
        /// Old files kept besides the current one. (`TRAIL_LOG_MAX_FILES`)
        public var maxFiles = 5
        /// All log files together stay under this. (`TRAIL_LOG_MAX_TOTAL`)
        public var maxTotalSize = 100 << 20
        /// Buffered lines reach the file at least this often, in seconds: at most this much is lost to a
        /// SIGKILL. (`TRAIL_LOG_FLUSH_MS`)
        public var flushInterval = 0.05
        /// Lines at this level or above are written before the logging call returns.
        public var flushLevel: Logger.Level = .error
        /// Every line is written before the logging call returns: nothing is lost even to SIGKILL, at the
        /// cost of a system call per line. (`TRAIL_LOG_DURABLE=1`)
        public var durable = false
        /// Flush logs and traces on a crash signal, then let the previous handler (the Swift backtracer)
        /// run and the process die of the same signal. (`TRAIL_CRASH=0` turns it off)
        public var crashHandler = true

        public init(appName: String? = nil, directory: String? = nil) {
            self.appName = appName ?? ExecutableName.current()
            self.directory = directory
        }
    }
}

extension Trail.Configuration {
    /// What the logger runs with: `automatic` decided, the folder chosen, and limits brought into range. The
    /// one place these decisions are made; `LogSink` and `LogFiles` read the result as it is.
    func resolved(standardErrorIsTerminal: Bool) -> Trail.Configuration {
        var config = self
        if config.destination == .automatic { config.destination = standardErrorIsTerminal ? .console : .file }
        if config.directory == nil { config.directory = Self.defaultDirectory(appName) }
        config.directory = Self.absolute(config.directory!)
        config.maxFileSize = min(max(Self.minimumFileSize, config.maxFileSize), Self.maximumSize)
        config.maxTotalSize = min(max(Self.minimumFileSize, config.maxTotalSize), Self.maximumSize)
        // One file never holds more than all files together: the effective size of a file, used as it is by the
        // rotation (LogFiles) and by the keeper's budget (LogSink, log_shared.c).
        config.maxFileSize = min(config.maxFileSize, config.maxTotalSize)
        // Keeping no old file would delete the previous run's log, and with it a crash block, on open.
        config.maxFiles = min(max(1, config.maxFiles), Self.maximumFiles)
        config.flushInterval = min(max(0.001, config.flushInterval), 60)
        return config
    }

    /// A file must hold a crash block and then some; the ranges the environment is checked against.
    static let minimumFileSize = 4 << 10
    static let maximumSize = 1 << 40
    static let maximumFiles = 1_000_000

    static func defaultDirectory(_ app: String) -> String {
        let environment = ProcessEnvironment.variables()
        if let state = environment["XDG_STATE_HOME"], !state.isEmpty { return state + "/" + app }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.local/state/" + app }
        // A privileged program reads no environment (ProcessEnvironment): the home of the user it runs as.
        if ProcessEnvironment.isPrivileged, let home = ProcessEnvironment.effectiveUserHome() {
            return home + "/.local/state/" + app
        }
        return userTemporaryFolder() + "/" + app
    }

    /// A relative folder is taken from the directory at bootstrap: a program that changes directory later (a
    /// daemon's chdir("/")) must not send its rotated files elsewhere.
    static func absolute(_ directory: String) -> String {
        guard !directory.hasPrefix("/") else { return directory }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return directory }
        let base = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let relative = directory.hasPrefix("./") ? String(directory.dropFirst(2)) : directory
        return (base.hasSuffix("/") ? base : base + "/") + relative
    }

    /// Without a home: a folder of this user's own in the temporary folder, `<tmp>/trail-<uid>`, created 0700.
    /// The temporary folder is writable by everyone, so one there that another user owns, or that others can
    /// write, is refused (reported) for a fresh private one: others could plant the log, marker or links.
    static func userTemporaryFolder() -> String {
        var base = TemporaryFolder.path
        while base.count > 1, base.hasSuffix("/") { base.removeLast() }
        let uid = geteuid()  // whose files these are: a set-user-ID program's, not its caller's
        let folder = "\(base)/trail-\(uid)"
        mkdir(folder, 0o700)
        var info = stat()
        if lstat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == uid, info.st_mode & 0o077 == 0 {
            return folder
        }
        var template = Array("\(folder)-XXXXXX".utf8CString)
        let fresh = template.withUnsafeMutableBufferPointer {
            mkdtemp($0.baseAddress!) != nil ? String(cString: $0.baseAddress!) : nil
        }
        LogSink.writeAll(
            2,
            "trail: \(folder) is not a folder of this user's own that only it can write; "
                + "logging to \(fresh ?? folder) instead\n")
        return fresh ?? folder
    }
}
