import TrailFormat
import TrailRewriter

#if canImport(Glibc)
import Glibc
#endif

/// Whole-file reads and crash-safe writes with plain system calls: a write goes to a temporary file in the
/// same folder, which is renamed over the target only once complete, so no file is ever half-written.
public enum FileIO {
    public static func read(_ path: String) throws(SourceError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure(path, "cannot read") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var info = stat()
        if fstat(fd, &info) == 0 { bytes.reserveCapacity(Int(info.st_size)) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(path, "cannot read")
            }
            bytes.append(contentsOf: chunk[0 ..< count])
        }
    }

    /// Replaces `path` with `bytes`. The file keeps its mode; a new file gets `mode`.
    public static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws(SourceError) {
        do {
            try AtomicFile.replace(path, with: bytes, mode: mode)
        } catch {
            throw SourceError(path: path, message: error.reason)
        }
    }

    /// `writeAtomically`, unless the file already holds `bytes`: a rerun command (SwiftPM reruns every plugin
    /// command when the tool is relinked, as any change of environment does) then leaves its output's time
    /// alone, and the compiler has nothing to redo.
    public static func writeIfChanged(_ bytes: [UInt8], to path: String) throws(SourceError) {
        do {
            try AtomicFile.replaceIfChanged(path, with: bytes)
        } catch {
            throw SourceError(path: path, message: error.reason)
        }
    }

    /// Creates the folders leading to `path`.
    public static func makeParents(of path: String) throws(SourceError) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let directory = String(path[..<slash])
        var info = stat()
        if stat(directory, &info) == 0 { return }
        try makeParents(of: directory)
        if mkdir(directory, 0o755) != 0, errno != EEXIST { throw failure(directory, "cannot create folder") }
    }

    private static func failure(_ path: String, _ what: String) -> SourceError {
        SourceError(path: path, message: "\(what): \(String(cString: strerror(errno)))")
    }
}
