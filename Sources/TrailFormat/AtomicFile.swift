#if canImport(Glibc)
import Glibc
#endif

/// A file written whole or not at all: the bytes go to a temporary file beside the target, which is renamed
/// over it only by `commit`. A reader never sees half a file, and a failed write leaves the old one in place.
/// Every writer of a named output file goes through this type.
public final class AtomicFile {
    /// The descriptor to write to.
    public let descriptor: Int32
    public let path: String
    private let temporary: String
    private let mode: mode_t
    private var open = true

    /// Starts a replacement for `path`. The file keeps its mode; a new file gets `mode`.
    public init(path: String, mode newMode: mode_t = 0o644) throws(AtomicFileError) {
        var info = stat()
        mode = stat(path, &info) == 0 ? info.st_mode & 0o7777 : newMode
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var template = Array("\(folder.isEmpty ? "/" : folder)/.\(name).trail-XXXXXX".utf8CString)
        descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw AtomicFileError(path: path, what: "cannot create a temporary file") }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        self.path = path
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
        guard fchmod(descriptor, mode) == 0 else { throw AtomicFileError(path: path, what: "cannot set the mode") }
        open = false
        close(descriptor)
        guard rename(temporary, path) == 0 else {
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
        unlink(temporary)
    }

    /// Replaces `path` with `bytes` in one step.
    public static func replace(_ path: String, with bytes: [UInt8], mode: mode_t = 0o644) throws(AtomicFileError) {
        let file = try AtomicFile(path: path, mode: mode)
        try file.write(bytes)
        try file.commit()
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
