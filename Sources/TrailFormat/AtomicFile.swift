#if canImport(Glibc)
import Glibc
#endif

/// A file written whole or not at all: the bytes go to a temporary file beside the target, which is renamed
/// over it only by `commit`. A reader never sees half a file, and a failed write leaves the old one in place.
/// Every writer of a named output file goes through this type (the runtime's files in a log folder go through
/// Trail's writePrivateFile instead, which never follows a link: its comment says why). A target that is not a regular file
/// (`/dev/null`, `/dev/stdout`, a FIFO) is written directly; a symbolic link is followed, and stays a link.
public final class AtomicFile {
    /// The descriptor to write to.
    public let descriptor: Int32
    public let path: String
    /// Nil when the target is written directly.
    private let temporary: String?
    private let target: String
    private let mode: mode_t
    private var open = true

    /// Starts a replacement for `path`. The file keeps its mode; a new file gets `mode` less the umask.
    public init(path: String, mode newMode: mode_t = 0o644) throws(AtomicFileError) {
        self.path = path
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            descriptor = Glibc.open(path, O_WRONLY | O_CLOEXEC | O_TRUNC)
            guard descriptor >= 0 else { throw AtomicFileError(path: path, what: "cannot open") }
            temporary = nil
            target = path
            mode = 0
            return
        }
        // The link's target is replaced, so the link stays one.
        var resolvedPath = path
        if let resolved = realpath(path, nil) {
            resolvedPath = String(cString: resolved)
            free(resolved)
        }
        target = resolvedPath
        let mask = umask(0)
        umask(mask)
        mode = stat(resolvedPath, &info) == 0 ? info.st_mode & 0o7777 : newMode & ~mask
        let slash = resolvedPath.lastIndex(of: "/")
        let folder = slash.map { String(resolvedPath[..<$0]) } ?? "."
        let name = slash.map { String(resolvedPath[resolvedPath.index(after: $0)...]) } ?? resolvedPath
        var template = Array("\(folder.isEmpty ? "/" : folder)/.\(name).trail-XXXXXX".utf8CString)
        descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw AtomicFileError(path: path, what: "cannot create a temporary file") }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit { abandon() }

    /// Writes all of `bytes`, retrying short writes.
    public func write(_ bytes: [UInt8]) throws(AtomicFileError) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                throw AtomicFileError(path: path, what: "cannot write")
            }
            written += count
        }
    }

    /// Puts the new file in place of the old.
    public func commit() throws(AtomicFileError) {
        guard open else { return }
        open = false
        guard let temporary else {
            close(descriptor)
            return
        }
        guard fchmod(descriptor, mode) == 0 else {
            let error = AtomicFileError(path: path, what: "cannot set the mode")
            close(descriptor)
            unlink(temporary)
            throw error
        }
        close(descriptor)
        guard rename(temporary, target) == 0 else {
            let error = AtomicFileError(path: path, what: "cannot replace the file")
            unlink(temporary)
            throw error
        }
    }

    /// Drops the new file; the old one stays as it was.
    public func abandon() {
        guard open else { return }
        open = false
        close(descriptor)
        if let temporary { unlink(temporary) }
    }

    /// Replaces `path` with `bytes` in one step.
    public static func replace(_ path: String, with bytes: [UInt8], mode: mode_t = 0o644) throws(AtomicFileError) {
        let file = try AtomicFile(path: path, mode: mode)
        try file.write(bytes)
        try file.commit()
    }

    /// `replace`, unless the file already holds `bytes`: generated sources and rerun build commands then keep
    /// their modification time, and the compiler has nothing to redo. Returns whether it wrote.
    @discardableResult
    public static func replaceIfChanged(_ path: String, with bytes: [UInt8], mode: mode_t = 0o644)
        throws(AtomicFileError) -> Bool
    {
        if holds(path, bytes) { return false }
        try replace(path, with: bytes, mode: mode)
        return true
    }

    /// Whether the regular file at `path` holds exactly `bytes`.
    private static func holds(_ path: String, _ bytes: [UInt8]) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) == bytes.count else {
            return false
        }
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var existing = [UInt8](repeating: 0, count: bytes.count + 1)
        var filled = 0
        while filled < existing.count {
            let count = existing.withUnsafeMutableBytes {
                read(descriptor, $0.baseAddress! + filled, $0.count - filled)
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            filled += count
        }
        return filled == bytes.count && existing[0 ..< filled].elementsEqual(bytes)
    }
}

/// What went wrong, with the file and the system's reason: "cannot write out.json: No space left on device".
public struct AtomicFileError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var reason: String

    init(path: String, what: String) {
        self.path = path
        reason = "\(what): \(String(cString: strerror(errno)))"
    }

    public var description: String { "\(path): \(reason)" }
}
