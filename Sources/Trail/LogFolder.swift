#if canImport(Glibc)
internal import Glibc
#endif

/// The log folder itself: made on first use, and said to be unsafe when others can write to it.
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
}
