#if canImport(Glibc)
import Glibc
#endif
import Foundation
internal import CTrailShim

extension Trail {
    /// How the runtime logs. Environment variables, when set, override what the code says, so operators
    /// can change a deployed program's logging without rebuilding it.
    public struct Configuration: Sendable {
        public enum Destination: String, Sendable {
            /// The console when stderr is a terminal (development), else the file (deployment).
            case automatic
            /// Lines go to stderr; nothing is redirected. (`TRAIL_LOG=console`)
            case console
            /// Lines go to the rotating file, and fd 2 points at it. (`TRAIL_LOG=file`)
            case file
            /// Both: the file as above, and a copy of each logger line on the original stderr. (`TRAIL_LOG=tee`)
            case tee
        }

        /// Names the files: `<appName>.log`. Defaults to the executable's name.
        public var appName: String
        /// Goes into crash blocks and reports. (`TRAIL_APP_VERSION`)
        public var appVersion: String?
        /// Defaults to `TRAIL_LOG_DIR`, else `$XDG_STATE_HOME/<appName>` (`~/.local/state/<appName>`).
        public var directory: String?
        public var destination: Destination = .automatic
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
            self.appName = appName ?? ProcessInfo.processInfo.processName
            self.directory = directory
        }
    }

    private static let bootstrapLock = NSLock()
    nonisolated(unsafe) private static var bootstrapped = false

    /// Starts logging as configured: the first call wins, later ones are ignored. Returns the log file, if
    /// lines go to one. Setting up the file can fail (say, an unwritable folder); the error says why and
    /// logging then stays on the console.
    @discardableResult
    public static func bootstrap(_ configuration: Configuration = Configuration()) throws -> String? {
        try bootstrapLock.withLock { () throws -> String? in
            guard !bootstrapped else { return LogSink.shared.currentFile }
            bootstrapped = true
            let config = configuration.applyingEnvironment(ProcessInfo.processInfo.environment)
            let directory = config.directory ?? Self.defaultDirectory(config.appName)
            let destination: LogSink.Destination = switch config.destination {
            case .automatic: isatty(2) != 0 ? .console : .file
            case .console: .console
            case .file: .file
            case .tee: .tee
            }
            // A crash marker names the log file of the run that crashed; opening the log rotates that file.
            let marker = CrashHandler.markerPath(directory: directory, stem: config.appName)
            let crashed = destination == .console ? nil : CrashHandler.readMarker(marker)
            try LogSink.shared.configure(LogSink.Setup(
                destination: destination, directory: directory, stem: config.appName,
                maxFileSize: config.maxFileSize, maxFileAge: config.maxFileAge, maxFiles: config.maxFiles,
                maxTotalSize: config.maxTotalSize, durable: config.durable, flushLevel: config.flushLevel,
                flushInterval: config.flushInterval, level: config.level))
            // The tracer's log-mode lines go through the logger, and the trace file sits beside the log.
            trail_set_log_hook { line, length in
                // The C side only calls with a line.
                LogSink.shared.writeRaw(UnsafeRawBufferPointer(start: line, count: length), level: .trace)
            }
            if destination != .console { trail_trace_set_directory(directory, config.appName) }
            let current = LogSink.shared.currentFile
            if let crashed {
                let rotated = crashed.log == current ? LogSink.shared.previousFile : nil
                CrashHandler.remember(CrashHandler.adoptPreviousCrash(marker: marker, found: crashed, rotatedTo: rotated))
            }
            if config.crashHandler {
                CrashHandler.install(app: "\(config.appName) \(config.appVersion ?? "-")", marker: marker, logFile: current)
            }
            return current
        }
    }

    static func defaultDirectory(_ app: String) -> String {
        let environment = ProcessInfo.processInfo.environment
        if let state = environment["XDG_STATE_HOME"], !state.isEmpty { return state + "/" + app }
        return (environment["HOME"] ?? NSTemporaryDirectory()) + "/.local/state/" + app
    }
}

extension Trail.Configuration {
    func applyingEnvironment(_ environment: [String: String]) -> Trail.Configuration {
        var config = self
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let directory = value("TRAIL_LOG_DIR") { config.directory = directory }
        if let destination = value("TRAIL_LOG").flatMap(Destination.init(rawValue:)) { config.destination = destination }
        if let level = value("TRAIL_LOG_LEVEL").flatMap(Logger.Level.init(rawValue:)) { config.level = level }
        if let size = value("TRAIL_LOG_MAX_SIZE").flatMap(Self.bytes) { config.maxFileSize = size }
        if let age = value("TRAIL_LOG_MAX_AGE").flatMap(Self.seconds) { config.maxFileAge = age }
        if let files = value("TRAIL_LOG_MAX_FILES").flatMap({ Int($0) }) { config.maxFiles = files }
        if let total = value("TRAIL_LOG_MAX_TOTAL").flatMap(Self.bytes) { config.maxTotalSize = total }
        if let milliseconds = value("TRAIL_LOG_FLUSH_MS").flatMap({ Double($0) }) { config.flushInterval = milliseconds / 1000 }
        if let durable = value("TRAIL_LOG_DURABLE") { config.durable = durable != "0" }
        if let crash = value("TRAIL_CRASH") { config.crashHandler = crash != "0" }
        if let version = value("TRAIL_APP_VERSION") { config.appVersion = version }
        return config
    }

    /// `65536`, `64K`, `10M`, `1G`.
    static func bytes(_ text: String) -> Int? {
        let scale: Int
        var digits = Substring(text)
        switch text.last {
        case "k", "K": scale = 1 << 10
        case "m", "M": scale = 1 << 20
        case "g", "G": scale = 1 << 30
        default: scale = 1
        }
        if scale > 1 { digits = digits.dropLast() }
        return Int(digits).map { $0 * scale }
    }

    /// `90`, `90s`, `15m`, `1h`, `1d`.
    static func seconds(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        if let last = text.last, let unit = units[last] { return Double(text.dropLast()).map { $0 * unit } }
        return Double(text)
    }
}
