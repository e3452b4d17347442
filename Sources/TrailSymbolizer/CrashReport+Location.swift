import TrailFormat

#if canImport(Glibc)
import Glibc
#endif

/// Finding the log and the block a report is about.
extension CrashReport {
    /// The last crash in a log folder (as named by its newest crash marker, else the newest log or console
    /// block file holding a crash block), a marker file's crash, or a log file.
    public static func locate(_ path: String) throws(SymbolizerError) -> (log: String, offset: Int?) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw SymbolizerError(description: "\(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            // A marker file (`app.<pid>.crash`): that process's crash.
            if path.hasSuffix(CrashMarker.fileExtension), info.st_mode & S_IFMT == S_IFREG,
                let text = try? readText(path), let marker = CrashMarker(parsing: text), access(marker.log, R_OK) == 0
            {
                return (marker.log, marker.offset)
            }
            return (path, nil)
        }
        // Only regular files: a FIFO or a link to a device planted in the folder is passed over.
        let names = listDirectory(path).filter { isRegularFile(path + "/" + $0) }
        // A marker from the runtime names the log and the block's offset.
        for name in names.filter({ $0.hasSuffix(CrashMarker.fileExtension) }).sorted(by: {
            modified(path + "/" + $0) > modified(path + "/" + $1)
        }) {
            guard let text = try? readText(path + "/" + name), let marker = CrashMarker(parsing: text) else { continue }
            if access(marker.log, R_OK) == 0 { return (marker.log, marker.offset) }
        }
        let logs = names.filter { $0.hasSuffix(".log") || $0.hasSuffix(CrashMarker.blockFileExtension) }.sorted {
            modified(path + "/" + $0) > modified(path + "/" + $1)
        }
        for log in logs {
            if let text = try? readText(path + "/" + log), text.contains(CrashBlockSyntax.beginPrefix(.crash)) {
                return (path + "/" + log, nil)
            }
        }
        throw SymbolizerError(description: "\(path): no crash marker and no log with a crash block")
    }

    /// The rotated log written just before `path`: for `app.log`, the newest `app.<N>.log`; for `app.<N>.log`,
    /// the newest with a smaller number. Rotated files keep their names, so this is the file that was current
    /// before. nil for a file not named so.
    static func precedingLog(_ path: String) -> String? {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard let (stem, sequence) = LogFileName.parse(name) else { return nil }
        let number = sequence ?? Int.max
        let previous = listDirectory(folder).compactMap { entry -> Int? in
            guard let parsed = LogFileName.parse(entry), parsed.stem == stem, isRegularFile(folder + "/" + entry) else {
                return nil
            }
            return parsed.sequence
        }.filter { $0 < number }.max()
        return previous.map { folder + "/" + LogFileName.name(stem: stem, sequence: $0) }
    }
}
