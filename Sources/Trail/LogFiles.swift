internal import CTrailShim
internal import TrailFormat

#if canImport(Glibc)
internal import Glibc
#endif

/// The rotating set of log files, shared by every process that logs as the same app into the same folder.
/// `app.log` is written (`O_APPEND`, so writers never overwrite each other); at rotation it is renamed
/// `app.<N>.log`, N one more than the newest in the folder, and keeps that name until it is deleted. Files rotate
/// by size and age; the oldest go when more than `maxFiles` are kept or when all of them together, the current
/// file included, would pass `maxTotalSize`.
///
/// Several instances (Docs/log-format.md, "Several processes, one folder"):
/// - rotation and pruning happen under an `flock` on the folder, and the rename never replaces a file
///   (`RENAME_NOREPLACE`), so two instances can neither take the same number nor rotate one file twice;
/// - each writer holds a shared `flock` on the `app.log` it writes. At start, a file nobody holds is the previous
///   run's and is rotated away; a file another process holds is joined, never moved or deleted;
/// - before each write the writer checks that `app.log` is still the file it holds. When another instance
///   rotated it, the writer follows to the new one; when someone deleted the file or the folder, both are made
///   again and that is reported once.
///
/// The folder is untrusted: files are created 0600 with `O_EXCL` whatever the umask, never through a link,
/// and anything at `app.log` that is not a regular file of ours with one link is reported and replaced.
struct LogFiles {
    /// Resolved (`Trail.Configuration.resolved`): the folder is set and the limits are in range.
    let config: Trail.Configuration
    let directory: String
    /// Where problems are reported: the original stderr, before any redirect.
    let report: (String) -> Void
    /// Where lines that cannot be written go instead of nowhere: the original stderr.
    let fallbackFD: Int32

    private(set) var fd: Int32 = -1
    /// The file `fd` is: when `app.log` is no longer it, someone rotated or deleted it.
    private var identity: (device: UInt, inode: UInt) = (0, 0)
    /// Rotated files, oldest first, as last seen in the folder.
    private var rotated: [(sequence: Int, size: Int)] = []
    private var rotatedTotal = 0
    /// The folder's modification time after this process last changed it (`refreshFolderView`).
    private var folderStamp = timespec()
    private var size = 0
    private var openedAt = 0.0
    /// Set while writes fail: lines go to `fallbackFD` and are counted.
    private var failure: String?
    private var divertedLines = 0
    /// Where the previous run's log went when this run opened the folder, if it was moved.
    private(set) var previousRunLog: String?

    private var stem: String { config.appName }
    /// Set when a rotation could not rename the file: until then, writes go on into it (0: rotation works).
    private var rotationHeldUntil = 0.0
    /// Lines dropped because the file was full and could not be rotated, since that was last said in the file.
    private var droppedLines = 0
    private var droppedReason = ""

    /// What the current file may hold: one file's share of the quota; while it cannot be rotated, what the quota
    /// leaves beside the rotated files, never more; and never past RLIMIT_FSIZE, where a write would kill the
    /// program with SIGXFSZ.
    private func capacity() -> Int {
        var capacity = config.maxFileSize
        if rotationHeldUntil > 0 { capacity = max(capacity, config.maxTotalSize - rotatedTotal) }
        let limit = trail_file_size_limit()
        if limit < UInt64(capacity) { capacity = Int(limit) }
        return capacity
    }

    init(_ config: Trail.Configuration, fallbackFD: Int32, report: @escaping (String) -> Void) throws(LogSetupError) {
        self.config = config
        self.directory = config.directory!
        self.report = report
        self.fallbackFD = fallbackFD
        try LogFolder.make(directory, report: report)
        var failed: LogSetupError?
        withFolderLock {
            do throws(LogSetupError) {
                findRotatedFiles()
                try openCurrent(atStart: true)
                prune(incoming: 0, keepNewest: true, folderLocked: true)
                noteFolderStamp()
            } catch {
                failed = error
            }
        }
        if let failed { throw failed }
    }

    func path(_ sequence: Int) -> String { directory + "/" + LogFileName.name(stem: stem, sequence: sequence) }

    var currentPath: String { directory + "/" + LogFileName.name(stem: stem) }

    /// Writes whole lines, rotating at line boundaries when the size limit is reached. With `index` >= 0 the
    /// bytes come from that log buffer, and its progress is published for the crash handler as they go out.
    mutating func write(_ bytes: UnsafeRawBufferPointer, buffer index: Int32) {
        if fd >= 0, !refreshSize() { forgetDescriptor() }
        followCurrentFile()
        guard fd >= 0 else { return divert(bytes, from: 0) }
        var offset = 0
        if let maxAge = config.maxFileAge, now() - openedAt >= maxAge, size > 0 { rotate() }
        if droppedLines > 0, rotationHeldUntil == 0 { noteDroppedLines() }
        var capacity = capacity()
        while offset < bytes.count {
            var end = bytes.count
            if size + (end - offset) > capacity {
                // As many whole lines as fit; a line longer than a whole file is cut at the file's size.
                let room = capacity - size
                var cut = offset + max(0, room)
                while cut > offset, bytes[cut - 1] != 10 { cut -= 1 }
                if cut == offset {
                    if size > 0 {
                        // Rotated, or refused with room left under the total: a fresh look at what fits.
                        let rotated = rotate()
                        let grown = self.capacity()
                        if !rotated, grown <= capacity { return divertOrDrop(bytes, from: offset) }
                        capacity = grown
                        continue
                    }
                    cut = min(bytes.count, offset + max(1, capacity))
                }
                end = cut
            }
            prune(incoming: end - offset, keepNewest: false, folderLocked: false)
            guard writeAll(bytes, from: offset, to: end, buffer: index) else { return divert(bytes, from: offset) }
            size += end - offset
            offset = end
            if size >= capacity, offset < bytes.count {
                let rotated = rotate()
                let grown = self.capacity()
                if !rotated, grown <= capacity { return divertOrDrop(bytes, from: offset) }
                capacity = grown
            }
        }
    }

    /// The file's real size: other instances, and code writing to fd 2 directly, grow it too. False when `fd` is
    /// no longer the file this process opened: the program closed it, and the number may be its own file now.
    private mutating func refreshSize() -> Bool {
        var info = stat()
        guard fstat(fd, &info) == 0, UInt(info.st_dev) == identity.device, UInt(info.st_ino) == identity.inode else {
            return false
        }
        size = Int(info.st_size)
        return true
    }

    /// The program closed the log's descriptor: it is forgotten, neither written nor closed (the number may be
    /// the program's now), and `app.log` is opened again by its path, which was made absolute at bootstrap.
    private mutating func forgetDescriptor() {
        trail_log_set_fd(-1)
        fd = -1
        report("trail: the log file's descriptor was closed by the program; \(currentPath) is opened again\n")
    }

    /// Lines that do not fit a full file that cannot be rotated: dropped and counted, within the bounds, and said
    /// in the file once rotation works again. Lines that failed to be written go to stderr as before.
    private mutating func divertOrDrop(_ bytes: UnsafeRawBufferPointer, from offset: Int) {
        guard failure == nil, fd >= 0 else { return divert(bytes, from: offset) }
        if droppedLines == 0 {
            droppedReason =
                rotationHeldUntil > 0 ? "the log file could not be rotated" : "the file size limit was reached"
            report(
                "trail: log file \(currentPath) is full and \(droppedReason); "
                    + "lines are dropped, within TRAIL_LOG_MAX_TOTAL, until it can be\n")
        }
        droppedLines += bytes[offset...].reduce(0) { $0 + ($1 == 10 ? 1 : 0) }
    }

    /// The first line of a file after lines were dropped says how many.
    private mutating func noteDroppedLines() {
        var line = "trail: \(droppedLines) log lines were dropped: \(droppedReason)\n"
        droppedLines = 0
        line.withUTF8 { text in
            guard size + text.count <= capacity() else { return }
            if writeAll(UnsafeRawBufferPointer(text), from: 0, to: text.count, buffer: -1) { size += text.count }
        }
    }

    private mutating func writeAll(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int, buffer index: Int32)
        -> Bool
    {
        // After a full disk, the file is tried again only when the lines fit with room to spare: one short line
        // squeezed into the last bytes would be a recovery followed at once by another failure.
        if failure != nil, !hasRoom(for: end - start) { return false }
        var offset = start
        while offset < end {
            let count = trail_log_write(fd, bytes.baseAddress! + offset, end - offset, index, offset)
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == ECANCELED { return false }  // a crash is being written: the handler owns the file
            if count <= 0 {
                let reason = count < 0 ? String(cString: strerror(errno)) : "nothing written"
                removeTornTail(written: offset - start)
                fail(reason)
                return false
            }
            offset += count
        }
        recovered()
        return true
    }

    /// A write cut short (a full disk) leaves part of a line at the file's end: taken off again, so that a line is
    /// in the file whole or not at all, and the next line does not start inside it. Only when the file is exactly
    /// `size` and those bytes: another writer may have appended since.
    private mutating func removeTornTail(written: Int) {
        guard written > 0 else { return }
        var info = stat()
        guard fstat(fd, &info) == 0, Int(info.st_size) == size + written else { return }
        _ = ftruncate(fd, off_t(size))
    }

    /// The file system has room for `count` bytes and 64 KiB more.
    private func hasRoom(for count: Int) -> Bool {
        var info = statvfs()
        guard fstatvfs(fd, &info) == 0 else { return true }
        return Int(info.f_bavail) * Int(info.f_frsize) >= count + (64 << 10)
    }

    // MARK: lines that cannot be written

    /// Reported once, on the original stderr, with the reason; lines then go there until the file works again.
    private mutating func fail(_ reason: String) {
        guard failure == nil else { return }
        failure = reason
        report(
            "trail: cannot write log file \(currentPath): \(reason); log lines go to stderr until it can be written again\n"
        )
    }

    private mutating func recovered() {
        guard failure != nil else { return }
        report("trail: writing log file \(currentPath) again; \(divertedLines) lines went to stderr meanwhile\n")
        failure = nil
        divertedLines = 0
    }

    /// Lines the file did not take go to the original stderr, counted; none while a crash owns the file (the
    /// crash handler writes the buffers).
    private mutating func divert(_ bytes: UnsafeRawBufferPointer, from offset: Int) {
        guard offset < bytes.count, failure != nil else { return }
        let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
        divertedLines += rest.reduce(0) { $0 + ($1 == 10 ? 1 : 0) }
        LogSink.writeAll(fallbackFD, rest)
    }

    // MARK: the current file

    /// Called before each write: `app.log` must still be the file `fd` is. Another instance's rotation is
    /// followed silently; a file or folder deleted by hand is made again and reported; a file that could not
    /// be opened is tried again.
    mutating func followCurrentFile() {
        var current = stat()
        if fd >= 0 {
            if lstat(currentPath, &current) == 0 {
                if UInt(current.st_dev) == identity.device, UInt(current.st_ino) == identity.inode { return }
            } else if errno != ENOENT, errno != ENOTDIR {
                return  // the path cannot be looked at (privileges dropped): the file held is still ours
            }
        }
        var held = stat()
        let deleted = fd >= 0 && fstat(fd, &held) == 0 && held.st_nlink == 0
        var failed: LogSetupError?
        withFolderLock {
            do throws(LogSetupError) {
                try LogFolder.make(directory, report: { _ in })
                try openCurrent(atStart: false)
            } catch {
                failed = error
            }
        }
        if let failed {
            closeCurrent()
            fail(failed.description)
        } else if deleted {
            report("trail: log file \(currentPath) was deleted while in use; made again\n")
        }
    }

    /// Under the folder lock: `fd` becomes the file at `app.log`. One another process holds is joined; at start,
    /// one nobody holds is the previous run's and is rotated away; otherwise a fresh file is created.
    private mutating func openCurrent(atStart: Bool) throws(LogSetupError) {
        var info = stat()
        if lstat(currentPath, &info) == 0 {
            if LogFolder.isOwnLogFile(info) {
                let existing = Glibc.open(currentPath, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
                var opened = stat()
                if existing >= 0, fstat(existing, &opened) == 0, opened.st_ino == info.st_ino,
                    LogFolder.isOwnLogFile(opened)
                {
                    let unused = flock(existing, LOCK_EX | LOCK_NB) == 0
                    if !(atStart && unused && opened.st_size > 0) {
                        flock(existing, LOCK_SH)  // joined: another instance writes it too, or it is empty
                        return adopt(existing, opened)
                    }
                    // The previous run's log: kept, rotated away, never truncated or deleted on open. A folder that
                    // allows no rename (append-only) keeps it, and this run appends to it.
                    if let moved = renameToNextSequence(size: Int(opened.st_size)) {
                        previousRunLog = moved
                    } else {
                        flock(existing, LOCK_SH)
                        return adopt(existing, opened)
                    }
                }
                if existing >= 0 { close(existing) }
            } else {
                try LogFolder.removeForeignFile(currentPath, info, report: report)
            }
        }
        try createCurrent()
    }

    /// A fresh `app.log`: created here (`O_EXCL`), so never a file someone planted in the folder.
    private mutating func createCurrent() throws(LogSetupError) {
        var opened: Int32 = -1
        for _ in 0 ..< 3 {
            opened = Glibc.open(
                currentPath, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
            guard opened < 0, errno == EEXIST else { break }
            var info = stat()
            guard lstat(currentPath, &info) == 0 else { continue }
            if LogFolder.isOwnLogFile(info) {  // made meanwhile by another copy: joined, never deleted
                let existing = Glibc.open(currentPath, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
                var joined = stat()
                if existing >= 0, fstat(existing, &joined) == 0, joined.st_ino == info.st_ino {
                    flock(existing, LOCK_SH)
                    return adopt(existing, joined)
                }
                if existing >= 0 { close(existing) }
                continue
            }
            try LogFolder.removeForeignFile(currentPath, info, report: report)
        }
        guard opened >= 0 else {
            throw LogSetupError(description: "cannot open log file \(currentPath): \(String(cString: strerror(errno)))")
        }
        fchmod(opened, 0o600)
        flock(opened, LOCK_SH)
        var info = stat()
        fstat(opened, &info)
        adopt(opened, info)
    }

    private mutating func adopt(_ opened: Int32, _ info: stat) {
        closeCurrent()
        // Kept high, where a program's own opens do not land first (its flock stays with the file description).
        fd = trail_fd_move_high(opened)
        identity = (UInt(info.st_dev), UInt(info.st_ino))
        size = Int(info.st_size)
        openedAt = now()
        trail_log_set_fd(fd)
    }

    /// Closes `fd` only while it is still the file this process opened: the program may have closed the number
    /// and opened a file of its own on it.
    private mutating func closeCurrent() {
        guard fd >= 0 else { return }
        trail_log_set_fd(-1)
        if trail_fd_is(fd, UInt64(identity.device), UInt64(identity.inode)) != 0 { close(fd) }
        fd = -1
    }

    // MARK: rotation and pruning

    /// `app.log` becomes `app.<N>.log` and a fresh `app.log` is opened: one rename, whatever is kept. When another
    /// instance rotated first, its new file is joined instead. False when a crash is being written into the
    /// current file, which then stays where it is, when the file cannot be renamed (tried again a second later),
    /// or when no file could be opened.
    @discardableResult
    mutating func rotate() -> Bool {
        guard rotationHeldUntil <= now() else { return false }
        guard trail_log_rotation_begin() != 0 else { return false }
        defer { trail_log_rotation_end() }
        var failed: LogSetupError?
        var held = false
        withFolderLock {
            do throws(LogSetupError) {
                var current = stat()
                let stillOurs =
                    lstat(currentPath, &current) == 0
                    && UInt(current.st_dev) == identity.device && UInt(current.st_ino) == identity.inode
                if stillOurs {
                    _ = refreshSize()
                    refreshFolderView()
                    if renameToNextSequence(size: size) == nil {
                        // Nothing moved (an append-only folder): the file grows on rather than lose lines, and
                        // rotation is tried again in a second, not at every write.
                        if rotationHeldUntil == 0 {
                            report(
                                "trail: cannot rotate log file \(currentPath): \(String(cString: strerror(errno))); "
                                    + "it grows past TRAIL_LOG_MAX_SIZE, never past TRAIL_LOG_MAX_TOTAL, until it can\n"
                            )
                        }
                        rotationHeldUntil = now() + 1
                        held = true
                        return
                    }
                    rotationHeldUntil = 0
                }
                try openCurrent(atStart: false)
                noteFolderStamp()  // this process's own rename and new file are no reason to read the folder again
                prune(incoming: 0, keepNewest: false, folderLocked: true)
                noteFolderStamp()
            } catch {
                failed = error
            }
        }
        guard let failed else { return !held }
        closeCurrent()
        fail(failed.description)
        return false
    }

    /// Under the folder lock: renames `app.log` to the first free `app.<N>.log` past the newest. The new path, or
    /// nil (errno says why) when it could not be moved.
    private mutating func renameToNextSequence(size: Int) -> String? {
        var sequence = (rotated.last?.sequence ?? 0) + 1
        for _ in 0 ..< 1000 {
            var moved = trail_rename_noreplace(currentPath, path(sequence)) == 0
            if !moved, errno == EINVAL || errno == ENOSYS {
                // NFS, CIFS, 9p and older FUSE know no RENAME_NOREPLACE: a plain rename to a name seen free, under
                // the folder lock that the other copies take too.
                var info = stat()
                if lstat(path(sequence), &info) == 0 {
                    errno = EEXIST
                } else {
                    moved = rename(currentPath, path(sequence)) == 0
                }
            }
            if moved {
                rotated.append((sequence, size))
                rotatedTotal += size
                return path(sequence)
            }
            guard errno == EEXIST else { return nil }
            sequence += 1
        }
        return nil
    }

    /// Deletes the oldest files while more than `maxFiles` are kept, or while the kept files, the current one
    /// and `incoming` bytes together would pass the quota. At open the previous run's log stays regardless.
    /// Deleting takes the folder lock (unless the caller holds it: flock does not nest) and looks at the folder
    /// again, since other instances rotate too.
    private mutating func prune(incoming: Int, keepNewest: Bool, folderLocked: Bool) {
        guard overQuota(incoming: incoming, keepNewest: keepNewest) else { return }
        guard folderLocked else {
            return withFolderLock {
                prune(incoming: incoming, keepNewest: keepNewest, folderLocked: true)
                noteFolderStamp()
            }
        }
        refreshFolderView()
        let keep = keepNewest ? 1 : 0
        while rotated.count > keep, overQuota(incoming: incoming, keepNewest: keepNewest) {
            let oldest = rotated.removeFirst()
            rotatedTotal -= oldest.size
            unlink(path(oldest.sequence))
        }
    }

    private func overQuota(incoming: Int, keepNewest: Bool) -> Bool {
        rotated.count > (keepNewest ? 1 : 0)
            && (rotated.count > config.maxFiles || rotatedTotal + size + incoming > config.maxTotalSize)
    }

    /// Under the folder lock: the folder is read again only when someone else changed it since this process last
    /// did, so that a rotation costs the same however many files are kept. Changed: its modification time moved,
    /// or the number after the newest this process knows is taken (directory times are coarse, and two changes
    /// within one tick leave the same time).
    private mutating func refreshFolderView() {
        var info = stat()
        var next = stat()
        let moved =
            stat(directory, &info) != 0
            || info.st_mtim.tv_sec != folderStamp.tv_sec || info.st_mtim.tv_nsec != folderStamp.tv_nsec
        guard moved || lstat(path((rotated.last?.sequence ?? 0) + 1), &next) == 0 else { return }
        findRotatedFiles()
    }

    /// After this process's own renames, creations and deletions, under the folder lock.
    private mutating func noteFolderStamp() {
        var info = stat()
        if stat(directory, &info) == 0 { folderStamp = info.st_mtim }
    }

    /// `app.<N>.log` files in the folder: from earlier runs and other instances. Sizes already known are kept.
    private mutating func findRotatedFiles() {
        guard let names = LogFolder.names(in: directory) else { return }
        var known: [Int: Int] = [:]
        for file in rotated { known[file.sequence] = file.size }
        rotated.removeAll(keepingCapacity: true)
        rotatedTotal = 0
        for name in names {
            guard let parsed = LogFileName.parse(name), parsed.stem == stem, let sequence = parsed.sequence else {
                continue
            }
            var size = known[sequence] ?? -1
            if size < 0 {
                var info = stat()
                guard lstat(path(sequence), &info) == 0 else { continue }
                // A planted link or FIFO counts as a file to delete in turn, never as bytes of ours.
                size = (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : 0
            }
            rotated.append((sequence, size))
            rotatedTotal += size
        }
        rotated.sort { $0.sequence < $1.sequence }
    }

    /// Runs `body` holding an exclusive `flock` on the folder: rotations and pruning by several instances take
    /// turns. Without the folder (deleted), `body` runs alone; it makes the folder again if it must.
    private func withFolderLock(_ body: () -> Void) {
        let folder = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            while flock(folder, LOCK_EX) != 0, errno == EINTR {}
        }
        body()
        if folder >= 0 { close(folder) }
    }

    private func now() -> Double { MonotonicClock.seconds }
}
