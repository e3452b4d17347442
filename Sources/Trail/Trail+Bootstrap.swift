internal import CTrailShim
internal import TrailFormat

#if canImport(Glibc)
internal import Glibc
#endif

extension Trail {
    private static let bootstrapLock = Lock()
    nonisolated(unsafe) private static var bootstrapped = false

    /// Starts logging as configured: the first call wins, later ones are ignored. Returns the log file, if
    /// lines go to one. Setting up the file can fail (say, an unwritable folder); the error says why and
    /// logging then stays on the console.
    @discardableResult
    public static func bootstrap(_ configuration: Configuration = Configuration()) throws -> String? {
        try bootstrapLock.withLock { () throws -> String? in
            guard !bootstrapped else { return LogSink.shared.currentFile }
            bootstrapped = true
            let config = configuration.applyingEnvironment(ProcessEnvironment.variables())
                .resolved(standardErrorIsTerminal: isatty(2) != 0)
            let directory = config.directory!
            // A crash is always kept, in console mode too: its block goes to the terminal and to a file in the
            // folder, which must exist before a crash. Without the folder, the terminal is all there is.
            var folderReady = true
            if config.destination == .console {
                do {
                    try LogFolder.make(directory) { LogSink.writeAll(2, $0) }
                } catch {
                    LogSink.writeAll(2, "trail: \(error); a crash will not be kept\n")
                    folderReady = false
                }
            }
            // Crash markers name the log file of the run that crashed; opening the log rotates that file.
            let markers = folderReady ? CrashHandler.findMarkers(directory: directory, app: config.appName) : []
            let wasCurrent = directory + "/" + LogFileName.name(stem: config.appName)
            try LogSink.shared.configure(config)
            // The tracer's log-mode lines go through the logger, and the trace file sits beside the log.
            trail_set_log_hook { line, length, messageLength, traceID, spanID in
                // The C side only calls with a line.
                LogSink.shared.writeTraceLine(
                    UnsafeRawBufferPointer(start: line, count: length), messageLength: messageLength,
                    traceID: traceID, spanID: spanID)
            }
            trail_trace_set_app(config.appName, config.appVersion ?? "")
            if config.destination != .console { trail_trace_set_directory(directory, config.appName) }
            let current = LogSink.shared.currentFile
            let rotated = current == nil ? nil : LogSink.shared.previousFile
            CrashHandler.remember(CrashHandler.adoptPreviousCrash(markers, current: wasCurrent, rotatedTo: rotated))
            if config.crashHandler {
                CrashHandler.install(
                    app: "\(config.appName) \(config.appVersion ?? "-")",
                    markerStem: folderReady ? CrashHandler.markerStem(directory: directory, app: config.appName) : nil,
                    logFile: current)
            }
            return current
        }
    }
}
