#if canImport(Glibc)
import Glibc
#endif
internal import CTrailShim

/// The rotating set of log files: `app.log` is written, `app.1.log` … `app.N.log` are older, like spdlog.
/// Rotation happens by size and age, keeps `maxFiles` old files within `maxTotalSize`, and points fd 2 at
/// each new file when stderr is redirected. Files are 0600 and never opened through a symlink.
struct LogFiles {
    /// Resolved (`Trail.Configuration.resolved`): the folder is set and the limits are in range.
    let config: Trail.Configuration
    let directory: String
    let redirectStandardError: Bool
    /// Where problems are reported: the original stderr, before any redirect.
    let report: (String) -> Void

    private(set) var fd: Int32 = -1
    /// Rotated files present: `app.1.log` … `app.<rotated>.log`.
    private var rotated = 0
    private var size = 0
    private var openedAt = 0.0
    private var failing = false

    private var stem: String { config.appName }
    private var maxSize: Int { config.maxFileSize }
    private var maxFiles: Int { config.maxFiles }

    init(_ config: Trail.Configuration, redirectStandardError: Bool, report: @escaping (String) -> Void) throws(LogSetupError) {
        self.config = config
        self.directory = config.directory!
        self.redirectStandardError = redirectStandardError
        self.report = report
        try Self.makeDirectory(directory)
        var info = stat()
        while rotated < maxFiles, lstat(path(rotated + 1), &info) == 0 { rotated += 1 }
        // The previous run's log is kept: rotated away, never truncated.
        if lstat(path(0), &info) == 0, info.st_size > 0 || (info.st_mode & S_IFMT) == S_IFLNK {
            shiftFiles()
        }
        try open()
    }

    func path(_ index: Int) -> String {
        index == 0 ? "\(directory)/\(stem).log" : "\(directory)/\(stem).\(index).log"
    }

    var currentPath: String { path(0) }

    /// Writes whole lines, rotating at line boundaries when the size limit is reached. Calls `progress`
    /// with the number of bytes written so far, for the crash handler.
    mutating func write(_ bytes: UnsafeRawBufferPointer, progress: (Int) -> Void) {
        var offset = 0
        if let maxAge = config.maxFileAge, now() - openedAt >= maxAge, size > 0 { rotate() }
        refreshSize()
        while offset < bytes.count {
            var end = bytes.count
            if size + (end - offset) > maxSize {
                // As many whole lines as fit; a line longer than a file starts a file of its own.
                let room = maxSize - size
                var cut = offset + max(0, room)
                while cut > offset, bytes[cut - 1] != 10 { cut -= 1 }
                if cut == offset {
                    if size > 0 {
                        rotate()
                        continue
                    }
                    cut = offset
                    while cut < bytes.count, bytes[cut] != 10 { cut += 1 }
                    cut = min(bytes.count, cut + 1)
                }
                end = cut
            }
            guard writeAll(UnsafeRawBufferPointer(rebasing: bytes[offset ..< end])) else { return }
            size += end - offset
            offset = end
            progress(offset)
            if size >= maxSize, offset < bytes.count { rotate() }
        }
    }

    /// The file's real size: code writing to fd 2 directly grows it too.
    private mutating func refreshSize() {
        var info = stat()
        if fstat(fd, &info) == 0 { size = Int(info.st_size) }
    }

    private mutating func writeAll(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if count < 0, errno == EINTR { continue }
            if count <= 0 {
                // Reported once, on the original stderr; the program keeps running and the lines are lost.
                if !failing {
                    failing = true
                    report("trail: cannot write log file \(currentPath): \(String(cString: strerror(errno))); log lines are being lost\n")
                }
                return false
            }
            offset += count
        }
        if failing {
            failing = false
            report("trail: writing log file \(currentPath) again\n")
        }
        return true
    }

    mutating func rotate() {
        shiftFiles()
        let previous = fd
        do {
            try open()
        } catch {
            report("trail: \(error.description)\n")
            return
        }
        if previous >= 0 { close(previous) }
        enforceQuota()
    }

    /// app.log -> app.1.log -> app.2.log ...; the oldest beyond `maxFiles` is deleted.
    private mutating func shiftFiles() {
        if maxFiles == 0 {
            unlink(path(0))
            return
        }
        if rotated == maxFiles {
            unlink(path(maxFiles))
            rotated -= 1
        }
        for index in stride(from: rotated, through: 0, by: -1) {
            rename(path(index), path(index + 1))
        }
        rotated += 1
    }

    /// Deletes the oldest files until all of them fit in `maxTotalSize`.
    private mutating func enforceQuota() {
        var total = 0
        for index in 0 ... rotated {
            var info = stat()
            guard lstat(path(index), &info) == 0 else { continue }
            total += Int(info.st_size)
            if total > config.maxTotalSize, index > 0 {
                for stale in index ... rotated { unlink(path(stale)) }
                rotated = index - 1
                return
            }
        }
    }

    private mutating func open() throws(LogSetupError) {
        let opened = Glibc.open(path(0), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard opened >= 0 else {
            throw LogSetupError(description: "cannot open log file \(path(0)): \(String(cString: strerror(errno)))")
        }
        fchmod(opened, 0o600)
        fd = opened
        size = 0
        openedAt = now()
        if redirectStandardError { dup2(opened, 2) }
        trail_log_set_fd(opened)
    }

    private func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func makeDirectory(_ directory: String) throws(LogSetupError) {
        var prefix = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0, errno != EEXIST {
                throw LogSetupError(description: "cannot create log folder \(prefix): \(String(cString: strerror(errno)))")
            }
        }
    }
}

public struct LogSetupError: Error, CustomStringConvertible {
    public var description: String
}
