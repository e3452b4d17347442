#if canImport(Glibc)
internal import Glibc
#endif

/// The log folder itself: made on first use, and said to be unsafe when others can write to it; and what sits
/// where a log file goes: Trail's own file, or something else, which is said and moved out of the way.
enum LogFolder {
    /// Creates the folder (0700) and its parents; a folder that others can write to is reported.
    static func make(_ directory: String, report: (String) -> Void) throws(LogSetupError) {
        var prefix = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0, errno != EEXIST {
                throw LogSetupError(
                    description: "cannot create log folder \(prefix): \(String(cString: strerror(errno)))")
            }
        }
        var info = stat()
        guard stat(directory, &info) == 0 else {
            throw LogSetupError(description: "cannot use log folder \(directory): \(String(cString: strerror(errno)))")
        }
        if info.st_mode & 0o022 != 0 {
            report(
                "trail: log folder \(directory) can be written by \(info.st_mode & 0o002 != 0 ? "anyone" : "its group") "
                    + "(mode \(String(info.st_mode & 0o7777, radix: 8))): others can plant files there; chmod go-w it\n"
            )
        }
    }

    /// The names in `directory` ("." and ".." left out), in the order the folder gives them; nil when it cannot be
    /// read.
    static func names(in directory: String) -> [String]? {
        guard let folder = opendir(directory) else { return nil }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// A regular file of this user's with one link: what Trail makes, safe to append to.
    static func isOwnLogFile(_ info: stat) -> Bool {
        (info.st_mode & S_IFMT) == S_IFREG && info.st_uid == geteuid() && info.st_nlink == 1
    }

    /// Something Trail did not make sits where a log file goes: say what, and take it out of the way (unlinking
    /// a link, FIFO or hard link touches only this name, never what it points at).
    static func removeForeignFile(_ path: String, _ info: stat, report: (String) -> Void) throws(LogSetupError) {
        let kind =
            switch info.st_mode & S_IFMT {
            case S_IFLNK: "a symbolic link"
            case S_IFIFO: "a FIFO"
            case S_IFCHR, S_IFBLK: "a device"
            case S_IFSOCK: "a socket"
            case S_IFDIR: "a folder"
            default:
                info.st_nlink > 1
                    ? "a file with \(info.st_nlink) hard links"
                    : info.st_uid != geteuid()
                        ? "a file owned by uid \(info.st_uid)" : nil
            }
        guard let kind else {  // our own file: an empty one goes, one with lines stays
            if info.st_size == 0 { unlink(path) }
            return
        }
        report(
            "trail: \(path) is \(kind), not a log file Trail made; it is left alone and a fresh log file is used instead\n"
        )
        guard unlink(path) == 0 || errno == ENOENT else {
            throw LogSetupError(description: "cannot replace \(path) (\(kind)): \(String(cString: strerror(errno)))")
        }
    }
}
