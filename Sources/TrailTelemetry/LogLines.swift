import TrailFormat

#if canImport(Glibc)
import Glibc
#endif

/// A log file's lines, read in 1 MiB chunks: memory stays bounded however large the file. A line longer than
/// `maxLine` is cut there (the rest of it is dropped) and counted.
public struct LogLines {
    static let maxLine = 1 << 20
    private(set) var cutLines = 0

    /// Calls `body` with each line, without its newline (nor a trailing CR).
    mutating func forEach(in path: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ExportFailure("cannot read \(path): \(errorText())") }
        defer { close(fd) }
        var pending: [UInt8] = []
        var skipping = false  // inside the rest of a line already cut
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count < 0 { throw ExportFailure("cannot read \(path): \(errorText())") }
            if count == 0 { break }
            try chunk.withUnsafeBufferPointer { bytes in
                var start = 0
                for index in 0 ..< count where bytes[index] == 10 {
                    if skipping {
                        skipping = false
                    } else if pending.isEmpty {
                        try emit(UnsafeBufferPointer(rebasing: bytes[start ..< index]), body)
                    } else {
                        pending += bytes[start ..< index]
                        try pending.withUnsafeBufferPointer { try emit($0, body) }
                        pending.removeAll(keepingCapacity: true)
                    }
                    start = index + 1
                }
                if !skipping { pending += bytes[start ..< count] }
                if pending.count > Self.maxLine {
                    try pending.withUnsafeBufferPointer {
                        try emit(UnsafeBufferPointer(rebasing: $0[..<Self.maxLine]), body)
                    }
                    pending.removeAll(keepingCapacity: true)
                    cutLines += 1
                    skipping = true
                }
            }
        }
        if !pending.isEmpty, !skipping { try pending.withUnsafeBufferPointer { try emit($0, body) } }
    }

    private func emit(_ line: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        try body(line.last == 13 ? UnsafeBufferPointer(rebasing: line.dropLast()) : line)
    }

    /// The log files a path stands for: a file as it is; a folder's `*.log` files, per app oldest first
    /// (`app.1.log`, `app.2.log`, …, then `app.log`, the one being written).
    public static func files(_ path: String) throws -> [String] {
        var info = stat()
        guard stat(path, &info) == 0 else { throw ExportFailure("\(path): \(errorText())") }
        guard info.st_mode & S_IFMT == S_IFDIR else { return [path] }
        guard let directory = opendir(path) else { throw ExportFailure("\(path): \(errorText())") }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            // Only regular files, not through links: a FIFO, a device or a link to a file elsewhere planted in the
            // folder is passed over.
            var file = stat()
            if name.hasSuffix(".log"), lstat(path + "/" + name, &file) == 0, file.st_mode & S_IFMT == S_IFREG {
                names.append(name)
            }
        }
        return names.map { (name: $0, key: rotationOrder($0)) }
            .sorted { ($0.key.stem, $0.key.number) < ($1.key.stem, $1.key.number) }
            .map { path + "/" + $0.name }
    }

    /// A log file's "device:inode": what a follower knows it by, whatever it is renamed to.
    public static func fileKey(_ info: stat) -> String { "\(info.st_dev):\(info.st_ino)" }

    /// Opens for reading the file listed at `path` as `key`, if it is still that file: a rotation between the
    /// listing and the open renames it and puts a new file at its path, and reading the new one as the listed
    /// one left the rest of the listed one unread. Never through a link, never a FIFO or a device swapped in
    /// since the listing (it could block, or ship what the folder's owner should not see). nil: not now.
    public static func openListed(_ path: String, key: String) -> Int32? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, fileKey(info) == key else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    /// `app.3.log` -> ("app", 3); `app.log` -> ("app", Int.max): the current file comes last (TrailFormat's
    /// LogFileName).
    public static func rotationOrder(_ name: String) -> (stem: String, number: Int) { LogFileName.order(name) }
}
