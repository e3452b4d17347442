#if canImport(Glibc)
internal import Glibc
#endif

/// Replaces `path` with `bytes` through a temporary file and a rename: readers see the old file or the new
/// one, never a part, and the file is 0600 whatever the umask. False when it could not be written.
/// Not through TrailFormat's AtomicFile, on purpose: this writes into a log folder others may have planted
/// files in (crash markers), so it never follows a link and never keeps an existing file's mode, where
/// AtomicFile, for outputs a user named, follows a link to replace its target and keeps the mode it finds.
@discardableResult
func writePrivateFile(_ path: String, _ text: String) -> Bool {
    let temporary = "\(path).\(getpid()).tmp"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard fd >= 0 else { return false }
    fchmod(fd, 0o600)
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { break }
        offset += count
    }
    close(fd)
    guard offset == bytes.count, rename(temporary, path) == 0 else {
        unlink(temporary)
        return false
    }
    return true
}
