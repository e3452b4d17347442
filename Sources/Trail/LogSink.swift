internal import CTrailShim
internal import TrailFormat

#if canImport(Glibc)
internal import Glibc
#endif

/// Where log lines go. Until `Trail.bootstrap`, straight to stderr. After it, to the console, or to a
/// rotating file. fd 2 then becomes a pipe that a thread drains into that file, so `print` to stderr, C's
/// `fprintf(stderr)`, child processes and the Swift runtime's "Fatal error" lines land there too, counted
/// against the size limits like the logger's own lines.
///
/// File lines are formatted outside any lock, then copied into one of two buffers under a short lock; a
/// flusher thread swaps the buffers and writes the full one every `flushInterval`, or sooner when half full.
/// Lines at `flushLevel` or above are written before the call returns, and `durable` writes every line so.
/// A crash handler writes both buffers without locks (`trail_log_flush_unlocked`); lines are published
/// whole, so none is torn.
public final class LogSink: @unchecked Sendable {
    public static let shared = LogSink()

    /// The level new loggers start at.
    public internal(set) var defaultLevel: Logger.Level = .info
    /// Text or JSON lines, wherever they go.
    public private(set) var lineFormat: Trail.Configuration.LineFormat = .text
    /// Where lines go, `automatic` decided: console, file or tee.
    public private(set) var destination: Trail.Configuration.Destination = .console
    /// The log file being written, when there is one.
    public var currentFile: String? { fileLock.withLock { files?.currentPath } }
    /// Where the previous file went at the last rotation (at open, the previous run's log): `app.<N>.log`.
    var previousFile: String? { fileLock.withLock { files?.previousRunLog } }

    private static let bufferCapacity = 1 << 20
    /// Guards the buffers' appends and swaps (the buffers themselves live in the C shim, where the crash
    /// handler can flush them); the flusher waits on it.
    private let condition = Condition()
    private var flushRequested = false
    private var flusherStarted = false

    private let fileLock = Lock()  // guards the file; whoever holds it writes and rotates
    private var files: LogFiles?
    private var durable = false
    private(set) var flushLevel: Logger.Level = .error
    private var flushInterval = 0.05
    /// The terminal or original stderr, for console and tee output and for the sink's own problems.
    private(set) var consoleFD: Int32 = 2
    /// The read end of the pipe fd 2 points at, and the bytes read from it that do not end a line yet.
    private var stderrPipe: Int32 = -1
    private var pipeBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)
    private var pipePending = 0
    /// Set in a child forked without exec: its lines go straight to the file it inherited (fd 2).
    private var forkedChild = false

    private init() {
        if trail_log_buffers_allocate(Self.bufferCapacity) != 0 { fatalError("trail: cannot allocate log buffers") }
    }

    // MARK: configuration

    /// `config` is resolved (`Trail.Configuration.resolved`): its destination decided and its folder set.
    func configure(_ config: Trail.Configuration) throws(LogSetupError) {
        defaultLevel = config.level
        lineFormat = config.lineFormat
        guard config.destination != .console else {
            destination = .console
            return
        }
        // A daemon may start with fd 2 closed: the next descriptor opened (the pipe, the log) would take its place.
        if fcntl(2, F_GETFD) < 0 {
            let null = open("/dev/null", O_WRONLY)
            if null >= 0, null != 2 {
                dup2(null, 2)
                close(null)
            }
        }
        // Kept high: a program that closes descriptors and opens its own files must not get this number back.
        let original = trail_fd_move_high(fcntl(2, F_DUPFD_CLOEXEC, 3))
        let report: (String) -> Void = { message in Self.writeAll(original, message) }
        let opened = try LogFiles(config, fallbackFD: original, report: report)
        fileLock.withLock {
            files = opened
            durable = config.durable
            flushLevel = config.flushLevel
            flushInterval = config.flushInterval
            consoleFD = original
            destination = config.destination
        }
        redirectStandardError(fallback: opened.fd, config)
        Self.installForkHandlers()
        // exec replaces the process without atexit: buffered lines are written first (exec_handoff.c).
        trail_log_set_exec_hooks({ LogSink.shared.prepareForExec() ? 1 : 0 }, { LogSink.shared.afterFailedExec() })
        startFlusher()
        atexit { LogSink.shared.flush(final: true) }
    }

    /// fd 2 becomes a pipe that the drain thread empties into the rotating file: bytes written by any code, or by
    /// children that inherited fd 2, are counted against the limits and rotate with the logger's lines. Without a
    /// pipe (none could be made), fd 2 points at the file itself, as the file was at bootstrap.
    private func redirectStandardError(fallback file: Int32, _ config: Trail.Configuration) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            dup2(file, 2)
            return
        }
        let readEnd = trail_fd_move_high(ends[0])
        let writeEnd = ends[1]
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(readEnd, F_SETFL, O_NONBLOCK)
        dup2(writeEnd, 2)  // fd 2 itself is inherited by children (dup2 leaves it open across exec)
        close(writeEnd)
        keeperBudget = UInt64(config.maxFileSize)
        trail_log_set_stderr_pipe(readEnd, keeperBudget)  // the pipe's identity first: pumps check it
        fileLock.withLock { stderrPipe = readEnd }
        // A program that closes every descriptor above 2 and goes on writing to stderr must not die of SIGPIPE.
        _ = trail_stderr_pipe_hold_reader(readEnd)
        DetachedThread.start(named: "trail-stderr") { [unowned self] in self.drainStandardError() }
    }

    /// Waits for bytes on the pipe and moves them into the file, whole lines at a time; a line still open after
    /// a flush interval goes as it is.
    private func drainStandardError() {
        var waitingLine = false
        while true {
            // The read end in use now: a fresh one replaces one the program closed (pumpStandardError).
            let pipe = fileLock.withLock { stderrPipe }
            if pipe < 0 { return }
            var ready = pollfd(fd: pipe, events: Int16(POLLIN), revents: 0)
            // Not forever even with no line open: the flusher may have read a partial line meanwhile.
            let count = poll(&ready, 1, waitingLine ? Int32(max(1, flushInterval * 1000)) : 1000)
            if count < 0, errno == EINTR { continue }
            let ended = fileLock.withLock { pumpStandardError(partialLines: count == 0) }
            if ended {
                // A crash has taken the file and the process is ending: a thread ending now blocks every signal
                // on its way out, and the backtracer, which pauses each thread to show it, gave up on this one
                // ("failed to suspend thread", 1 crash in 5 under load). It waits for the end instead.
                while trail_log_crashed() != 0 { pause() }
                return
            }
            waitingLine = fileLock.withLock { pipePending > 0 }
        }
    }

    /// Requires `fileLock`. Moves what the pipe holds now into the file; with `partialLines`, a last line without
    /// its newline goes too. True when the pipe has no writer left, or a crash has taken the file.
    @discardableResult
    private func pumpStandardError(partialLines: Bool) -> Bool {
        guard stderrPipe >= 0 else { return true }
        guard pipeIsOurs() else {
            // Closed by the program, and perhaps its file now: never read, never closed. A fresh read end comes
            // from the holder thread's copy.
            let fresh = trail_stderr_pipe_reopen_reader()
            stderrPipe = fresh
            guard fresh >= 0, pipeIsOurs() else {
                stderrPipe = -1
                return true
            }
            trail_log_set_stderr_pipe(fresh, keeperBudget)
            return pumpStandardError(partialLines: partialLines)
        }
        guard trail_log_busy_begin() != 0 else { return true }
        defer { trail_log_busy_end() }
        var ended = false
        // A bounded amount per call: a child flooding fd 2 must not keep the lock from urgent lines for long.
        for _ in 0 ..< 16 {
            if pipePending == pipeBuffer.count {  // a whole buffer without a newline: it goes as it is
                files?.write(UnsafeRawBufferPointer(pipeBuffer), buffer: -1)
                pipePending = 0
            }
            let count = read(stderrPipe, pipeBuffer.baseAddress! + pipePending, pipeBuffer.count - pipePending)
            if count < 0, errno == EINTR { continue }
            if count == 0 { ended = true }
            if count <= 0 { break }
            let end = pipePending + count
            var lineEnd = end
            while lineEnd > 0, pipeBuffer[lineEnd - 1] != 10 { lineEnd -= 1 }
            if lineEnd > 0 {
                files?.write(UnsafeRawBufferPointer(rebasing: pipeBuffer[0 ..< lineEnd]), buffer: -1)
                pipeBuffer.baseAddress!.copyMemory(from: pipeBuffer.baseAddress! + lineEnd, byteCount: end - lineEnd)
            }
            pipePending = end - lineEnd
        }
        if partialLines || ended, pipePending > 0 {
            // The line is ended here, so that the next record (a JSON object) starts a line of its own.
            if pipePending == pipeBuffer.count {
                files?.write(UnsafeRawBufferPointer(pipeBuffer), buffer: -1)
                pipePending = 0
            }
            pipeBuffer[pipePending] = 10
            files?.write(UnsafeRawBufferPointer(rebasing: pipeBuffer[0 ... pipePending]), buffer: -1)
            pipePending = 0
        }
        return ended
    }

    /// What a keeper may write into the file after this process is gone: one file's share.
    private var keeperBudget: UInt64 = 0

    /// The read end is still the pipe (the C side knows its identity): the program may close and reuse the number.
    private func pipeIsOurs() -> Bool { trail_log_is_stderr_pipe(stderrPipe) != 0 }

    // MARK: exec

    /// Before an exec: what is buffered goes into the file, and the sink's lock stays held until the exec is
    /// known to have failed, so that the drain thread does not read the pipe while the C side hands it over.
    /// exec may come from a signal handler that interrupted this sink holding its locks: only tries, for up to
    /// 100 ms, and then the buffers are written without locks, as a crash handler writes them.
    func prepareForExec() -> Bool {
        var held = fileLock.tryLock()
        for _ in 0 ..< 100 where !held {
            usleep(1000)
            held = fileLock.tryLock()
        }
        guard held else {
            trail_log_flush_unlocked()
            return false
        }
        if condition.tryLock() {
            condition.unlock()
            swapAndWrite()
        } else {
            trail_log_flush_unlocked()
        }
        pumpStandardError(partialLines: true)
        return true
    }

    func afterFailedExec() { fileLock.unlock() }

    // MARK: fork without exec

    /// The child of a `fork()` must find no lock held by a thread that did not follow it, and must not write the
    /// parent's buffered lines (the parent does). Its own lines go to the file at once, a line per write.
    private static func installForkHandlers() {
        pthread_atfork(
            { LogSink.shared.beforeFork() }, { LogSink.shared.afterFork(child: false) },
            { LogSink.shared.afterFork(child: true) })
    }

    private func beforeFork() {
        fileLock.lock()
        // Buffered lines are written now, once: after the fork neither side could tell whose they are, and a
        // parent that ends at once (daemon(), a double fork) would take them with it.
        swapAndWrite()
        condition.lock()
    }

    private func afterFork(child: Bool) {
        if child {
            // trail_log's own fork handler emptied the buffers and closed the pipe's read end.
            forkedChild = true
            stderrPipe = -1
            pipePending = 0
            flushRequested = false
        }
        condition.unlock()
        fileLock.unlock()
    }

    /// A forked child's line, written at once to the log file it inherited (O_APPEND, so it never overwrites the
    /// parent's lines), not to fd 2, which daemon() points at /dev/null.
    private func deliverInChild(_ line: UnsafeRawBufferPointer) {
        let file = trail_log_fd()
        Self.writeAll(file >= 0 ? file : 2, line)
    }

    // MARK: writing

    /// Where a logging call was made.
    @usableFromInline struct Source {
        let file: StaticString
        let function: StaticString
        let line: UInt
        /// Where a call in swift-log's shape came from: its file and function are not static, and it may name
        /// its module (`source:`).
        var dynamic: (file: String, function: String, module: String?)?

        @usableFromInline init(file: StaticString, function: StaticString, line: UInt) {
            self.file = file
            self.function = function
            self.line = line
        }

        @usableFromInline init(file: String, function: String, line: UInt, module: String?) {
            self.file = ""
            self.function = ""
            self.line = line
            self.dynamic = (file, function, module)
        }
    }

    /// Writes one line for another logging API (TrailLogging's swift-log handler), with the same format, file,
    /// rotation and bounds as Trail's `Logger`. `module` is swift-log's `source`.
    public func write(
        level: Logger.Level, label: String, message: String, metadata: Logger.Metadata,
        module: String?, file: String, function: String, line: UInt
    ) {
        // The text goes straight into the line: a Message would allocate to hold it.
        write(
            level: level, label: label, metadata: metadata,
            source: Source(file: file, function: function, line: line, module: module)
        ) {
            line, escapesText in
            let start = line.length
            line.append(message)
            if escapesText { line.escapeControls(from: start) }
        }
    }

    /// Formats and writes one line: `<time> <level> <label>: <message> key=value (Module/File.swift:12)`, or
    /// its JSON form (LineBuilder+JSON.swift).
    func write(level: Logger.Level, label: String, message: Logger.Message, metadata: Logger.Metadata, source: Source) {
        write(level: level, label: label, metadata: metadata, source: source) { line, escapesText in
            message.write(into: &line, escapesText: escapesText)
        }
    }

    /// `message` writes the message's text into the line, escaping control bytes when asked (text lines).
    @inline(__always)
    func write(
        level: Logger.Level, label: String, metadata: Logger.Metadata, source: Source,
        message: (inout LineBuilder, _ escapesText: Bool) -> Void
    ) {
        if lineFormat == .json {
            return writeJSON(level: level, label: label, metadata: metadata, source: source, message: message)
        }
        let file = source.file
        let line = source.line
        assemble(level, urgent: level >= flushLevel) { text in
            // Labels, keys and a swift-log call's file are any strings too: escaped as values are.
            let labelStart = text.length
            text.append(label)
            text.escapeControls(from: labelStart)
            text.append(LogLineFormat.labelEnd)
            message(&text, true)
            if !metadata.isEmpty {
                for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
                    text.append(" ")
                    let start = text.length
                    text.append(key)
                    text.append("=")
                    text.append(value.description)
                    text.escapeControls(from: start)
                }
            }
            text.append(LogLineFormat.locationStart)
            if let dynamic = source.dynamic {
                let fileStart = text.length
                text.append(dynamic.file)
                text.escapeControls(from: fileStart)
            } else {
                text.append(file)
            }
            text.append(":")
            text.append(Int(line))
            text.append(LogLineFormat.locationEnd)
            text.append("\n")
        }
    }

    /// A log-mode line of the tracer, ending in its ids and a newline; the first `messageLength` bytes come before
    /// the ids, which JSON lines give as keys.
    func writeTraceLine(
        _ bytes: UnsafeRawBufferPointer, messageLength: Int, traceID: UnsafePointer<UInt8>?, spanID: UInt64
    ) {
        if lineFormat == .json {
            return writeTraceLineJSON(bytes, messageLength: messageLength, traceID: traceID, spanID: spanID)
        }
        assemble(.trace, urgent: false) { text in text.append(bytes) }
    }

    /// `<time> <level> ` and what `body` adds, assembled on the stack and delivered.
    @inline(__always)
    private func assemble(_ level: Logger.Level, urgent: Bool, _ body: (inout LineBuilder) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { scratch in
            var text = LineBuilder(scratch)
            text.reserveTimestamp()
            text.append(level.name)
            text.append(" ")
            body(&text)
            text.withBytes { deliver($0, urgent: urgent) }
        }
    }

    func deliver(_ line: UnsafeRawBufferPointer, urgent: Bool) {
        switch destination {
        case .console, .automatic:
            Self.writeAll(consoleFD, line)
            return
        case .tee:
            Self.writeAll(consoleFD, line)
        case .file:
            break
        }
        if forkedChild { return deliverInChild(line) }
        if durable {
            fileLock.withLock { writeToFile(line) }
            return
        }
        while true {
            condition.lock()
            let filled = trail_log_append(line.baseAddress!, line.count)
            if filled > 0 {
                if filled >= Self.bufferCapacity / 2, !flushRequested {
                    flushRequested = true
                    condition.signal()
                }
                condition.unlock()
                if urgent { flush() }
                return
            }
            let empty = trail_log_buffer_is_empty() != 0
            condition.unlock()
            if empty || line.count > Self.bufferCapacity {
                fileLock.withLock { writeToFile(line) }  // larger than a buffer: written on its own
                return
            }
            flush()  // full: write it out here and try again
        }
    }

    /// Writes everything buffered to the file now, and what fd 2's pipe holds.
    public func flush() { flush(final: false) }

    /// `final` (at exit): a last line written to fd 2 without its newline goes too.
    func flush(final: Bool) {
        fileLock.withLock {
            files?.followCurrentFile()  // a file or folder deleted by hand is made again within an interval
            swapAndWrite()
            pumpStandardError(partialLines: final)
            if final, stderrPipe >= 0, trail_log_busy_begin() != 0 {
                // Children that outlive this process keep a reader for the fd 2 they inherited.
                trail_log_stderr_handoff()
                stderrPipe = -1
                trail_log_busy_end()
            }
        }
    }

    /// Requires `fileLock`.
    private func swapAndWrite() {
        var index: Int32 = 0
        var bytes: UnsafePointer<UInt8>?
        condition.lock()
        let count = trail_log_take(&index, &bytes)
        flushRequested = false
        condition.unlock()
        guard count > 0, let bytes else { return }
        files?.write(UnsafeRawBufferPointer(start: bytes, count: count), buffer: index)
        trail_log_release(index)
    }

    /// Requires `fileLock`. Buffered lines go first, so the file keeps the order lines were logged in.
    private func writeToFile(_ line: UnsafeRawBufferPointer) {
        swapAndWrite()
        files?.write(line, buffer: -1)
    }

    private func startFlusher() {
        condition.lock()
        defer { condition.unlock() }
        guard !flusherStarted else { return }
        flusherStarted = true
        DetachedThread.start(named: "trail-log") { [unowned self] in
            var lastImageCheck = MonotonicClock.seconds
            while true {
                self.condition.lock()
                if !self.flushRequested { self.condition.wait(seconds: self.flushInterval) }
                self.condition.unlock()
                self.flush()
                // Libraries loaded since start-up must be in a crash block's image map.
                if MonotonicClock.seconds - lastImageCheck > 1 {
                    trail_crash_refresh_images()
                    lastImageCheck = MonotonicClock.seconds
                }
            }
        }
    }

    static func writeAll(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { writeAll(fd, UnsafeRawBufferPointer($0)) }
    }

    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            let count = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return }
            offset += count
        }
    }
}
