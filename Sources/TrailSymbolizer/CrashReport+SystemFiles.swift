import TrailFormat

#if canImport(Glibc)
import Glibc
#endif

/// What a report reads of the system: the OS release, the kernel, files and folders (no Foundation).
extension CrashReport {
    static func osRelease() -> String? {
        guard let text = try? readText("/etc/os-release") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("PRETTY_NAME=") {
            return String(line.dropFirst("PRETTY_NAME=".count)).trimmingQuotes()
        }
        return nil
    }

    static func text<T>(_ field: inout T) -> String {
        withUnsafeBytes(of: &field) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// The whole file, up to `limit` bytes (a planted link to /dev/zero must not eat the memory).
    public static func readText(_ path: String, limit: Int = 1 << 30) throws(SymbolizerError) -> String {
        guard let handle = fopen(path, "rb") else {
            throw SymbolizerError(description: "\(path): cannot read (\(String(cString: strerror(errno))))")
        }
        defer { fclose(handle) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = fread(&chunk, 1, chunk.count, handle)
            if count <= 0 { break }
            bytes.append(contentsOf: chunk[0 ..< count])
            if bytes.count > limit {
                throw SymbolizerError(description: "\(path): larger than \(limit >> 20) MiB; not a log")
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A regular file, or a link to one: what a folder may hold that is worth opening (a FIFO would block).
    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// The names in a folder (regular files or not).
    static func listDirectory(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            var name = entry.pointee.d_name
            let text = Self.text(&name)
            if text != ".", text != ".." { names.append(text) }
        }
        return names
    }

    static func modified(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec) : 0
    }
}

extension String {
    func trimmingQuotes() -> String {
        var text = Substring(self)
        if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = text.dropFirst().dropLast() }
        return String(text)
    }
}
