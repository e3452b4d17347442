#if canImport(Glibc)
import Glibc
#endif
internal import CTrailShim

/// The rotating set of log files. `app.log` is written; at rotation it is renamed `app.<N>.log`, N one more
/// than the newest, and keeps that name until it is deleted, so a rotation costs one rename however many
/// files are kept, and a crash marker's file name stays true. Files rotate by size and age; the oldest go
/// when more than `maxFiles` are kept or when all of them together, the current file included, would pass
/// `maxTotalSize`. fd 2 points at each new file when stderr is redirected.
///
/// The folder is untrusted: files are created 0600 with `O_EXCL` whatever the umask, never through a link,
/// and anything at `app.log` that is not a regular file Trail owns with one link is reported and replaced.
struct LogFiles {
    /// Resolved (`Trail.Configuration.resolved`): the folder is set and the limits are in range.
    let config: Trail.Configuration
    let directory: String
    let redirectStandardError: Bool
    /// Where problems are reported: the original stderr, before any redirect.
    let report: (String) -> Void

    private(set) var fd: Int32 = -1
    /// Rotated files, oldest first.
    private var rotated: [(sequence: Int, size: Int)] = []
    private var rotatedTotal = 0
    private var nextSequence = 1
    private var size = 0
    private var openedAt = 0.0
    private var failing = false

    private var stem: String { config.appName }
    /// One file never holds more than the quota for all of them.
    private var maxSize: Int { min(config.maxFileSize, config.maxTotalSize) }

    init(_ config: Trail.Configuration, redirectStandardError: Bool, report: @escaping (String) -> Void) throws(LogSetupError) {
        self.config = config
        self.directory = config.directory!
        self.redirectStandardError = redirectStandardError
        self.report = report
        try Self.makeDirectory(directory, report: report)
        findRotatedFiles()
        // The previous run's log is kept: rotated away, never truncated, never deleted on open.
        var info = stat()
        if lstat(currentPath, &info) == 0 {
            if isOwnLogFile(info), info.st_size > 0 {
                let sequence = nextSequence
                if rename(currentPath, path(sequence)) == 0 {
                    nextSequence += 1
                    rotated.append((sequence, Int(info.st_size)))
                    rotatedTotal += Int(info.st_size)
                }
            } else {
                try removeForeignFile(currentPath, info)
            }
        }
        prune(incoming: 0, keepNewest: true)
        try open()
    }

    func path(_ sequence: Int) -> String { "\(directory)/\(stem).\(sequence).log" }

    var currentPath: String { "\(directory)/\(stem).log" }

    /// The file the previous run's log (or the last rotation) went to.
    var newestRotatedPath: String? { rotated.last.map { path($0.sequence) } }

    /// Writes whole lines, rotating at line boundaries when the size limit is reached. With `index` >= 0 the
    /// bytes come from that log buffer, and its progress is published for the crash handler as they go out.
    mutating func write(_ bytes: UnsafeRawBufferPointer, buffer index: Int32) {
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
                        if !rotate() { return }
                        continue
                    }
                    cut = offset
                    while cut < bytes.count, bytes[cut] != 10 { cut += 1 }
                    cut = min(bytes.count, cut + 1)
                }
                end = cut
            }
            prune(incoming: end - offset, keepNewest: false)
            guard writeAll(bytes, from: offset, to: end, buffer: index) else { return }
            size += end - offset
            offset = end
            if size >= maxSize, offset < bytes.count, !rotate() { return }
        }
    }

    /// The file's real size: code writing to fd 2 directly grows it too.
    private mutating func refreshSize() {
        var info = stat()
        if fstat(fd, &info) == 0 { size = Int(info.st_size) }
    }

    private mutating func writeAll(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int, buffer index: Int32) -> Bool {
        var offset = start
        while offset < end {
            let count = trail_log_write(fd, bytes.baseAddress! + offset, end - offset, index, offset)
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == ECANCELED { return false }  // a crash is being written: the file is its
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

    /// `app.log` becomes `app.<N>.log` and a fresh `app.log` is opened: one rename, whatever is kept. False when
    /// a crash is being written into the current file, which then stays where it is.
    @discardableResult
    mutating func rotate() -> Bool {
        guard trail_log_rotation_begin() != 0 else { return false }
        defer { trail_log_rotation_end() }
        let sequence = nextSequence
        nextSequence += 1
        refreshSize()
        if rename(currentPath, path(sequence)) == 0 {
            rotated.append((sequence, size))
            rotatedTotal += size
        }
        let previous = fd
        do {
            try open()
        } catch {
            report("trail: \(error.description)\n")
            return false
        }
        if previous >= 0 { close(previous) }
        prune(incoming: 0, keepNewest: false)
        return true
    }

    /// Deletes the oldest files while more than `maxFiles` are kept, or while the kept files, the current one
    /// and `incoming` bytes together would pass the quota. At open the previous run's log stays regardless.
    private mutating func prune(incoming: Int, keepNewest: Bool) {
        let keep = keepNewest ? 1 : 0
        while rotated.count > keep,
              rotated.count > config.maxFiles || rotatedTotal + size + incoming > config.maxTotalSize {
            let oldest = rotated.removeFirst()
            rotatedTotal -= oldest.size
            unlink(path(oldest.sequence))
        }
    }

    /// `app.<N>.log` files already in the folder, from earlier runs.
    private mutating func findRotatedFiles() {
        guard let folder = opendir(directory) else { return }
        defer { closedir(folder) }
        let prefix = Array("\(stem).".utf8), suffix = Array(".log".utf8)
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            guard name.count > prefix.count + suffix.count, name.starts(with: prefix), name.suffix(4).elementsEqual(suffix) else { continue }
            let digits = name[prefix.count ..< name.count - suffix.count]
            guard digits.count <= 18, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { continue }
            let sequence = digits.reduce(0) { $0 * 10 + Int($1 - 48) }
            var info = stat()
            guard sequence > 0, lstat(path(sequence), &info) == 0 else { continue }
            // A planted link or FIFO counts as a file to delete in turn, never as bytes of ours.
            let size = (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : 0
            rotated.append((sequence, size))
            rotatedTotal += size
            nextSequence = max(nextSequence, sequence + 1)
        }
        rotated.sort { $0.sequence < $1.sequence }
    }

    private func isOwnLogFile(_ info: stat) -> Bool {
        (info.st_mode & S_IFMT) == S_IFREG && info.st_uid == geteuid() && info.st_nlink == 1
    }

    /// Something Trail did not make sits where a log file goes: say what, and take it out of the way (unlinking
    /// a link, FIFO or hard link touches only this name, never what it points at).
    private func removeForeignFile(_ path: String, _ info: stat) throws(LogSetupError) {
        let kind = switch info.st_mode & S_IFMT {
        case S_IFLNK: "a symbolic link"
        case S_IFIFO: "a FIFO"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFSOCK: "a socket"
        case S_IFDIR: "a folder"
        default: info.st_nlink > 1 ? "a file with \(info.st_nlink) hard links" : info.st_uid != geteuid()
            ? "a file owned by uid \(info.st_uid)" : nil
        }
        guard let kind else {  // our own empty file
            unlink(path)
            return
        }
        report("trail: \(path) is \(kind), not a log file Trail made; it is left alone and a fresh log file is used instead\n")
        guard unlink(path) == 0 || errno == ENOENT else {
            throw LogSetupError(description: "cannot replace \(path) (\(kind)): \(String(cString: strerror(errno)))")
        }
    }

    /// A fresh `app.log`: created here (`O_EXCL`), so never a file someone planted in the folder.
    private mutating func open() throws(LogSetupError) {
        var opened: Int32 = -1
        for _ in 0 ..< 3 {
            opened = Glibc.open(currentPath, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard opened < 0, errno == EEXIST else { break }
            var info = stat()
            if lstat(currentPath, &info) == 0 { try removeForeignFile(currentPath, info) }
        }
        guard opened >= 0 else {
            throw LogSetupError(description: "cannot open log file \(currentPath): \(String(cString: strerror(errno)))")
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

    /// Creates the folder (0700) and its parents; a folder that others can write to is reported.
    static func makeDirectory(_ directory: String, report: (String) -> Void) throws(LogSetupError) {
        var prefix = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0, errno != EEXIST {
                throw LogSetupError(description: "cannot create log folder \(prefix): \(String(cString: strerror(errno)))")
            }
        }
        var info = stat()
        guard stat(directory, &info) == 0 else {
            throw LogSetupError(description: "cannot use log folder \(directory): \(String(cString: strerror(errno)))")
        }
        if info.st_mode & 0o022 != 0 {
            report("trail: log folder \(directory) can be written by \(info.st_mode & 0o002 != 0 ? "anyone" : "its group") "
                + "(mode \(String(info.st_mode & 0o7777, radix: 8))): others can plant files there; chmod go-w it\n")
        }
    }
}

public struct LogSetupError: Error, CustomStringConvertible {
    public var description: String
}
