internal import CTrailShim

#if canImport(Glibc)
internal import Glibc
#endif

/// The system's temporary folder, as Foundation's `NSTemporaryDirectory()` gave it on Linux (Swift 6.3), which
/// placed the folder of a user without a home before: "/tmp/", or $TMPDIR when set (not in a set-user-ID
/// program), a "~" at its start expanded and a relative one made absolute against the working folder; always
/// ending in one "/" (an empty $TMPDIR gives "//").
enum TemporaryFolder {
    static var path: String {
        guard let value = trail_secure_getenv("TMPDIR").map({ String(cString: $0) }) else { return "/tmp/" }
        var path = value.hasSuffix("/") ? value : value + "/"
        if path.hasPrefix("~") { path = expandingTilde(path) }
        if !path.hasPrefix("/") { path = absolute(path) }
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path + "/"
    }

    /// "~/x" in the user's home (its passwd entry), "~name/x" in name's; left alone for an unknown name.
    private static func expandingTilde(_ path: String) -> String {
        let slash = path.firstIndex(of: "/") ?? path.endIndex
        let user = path[path.index(after: path.startIndex) ..< slash]
        let entry = user.isEmpty ? getpwuid(getuid()) : getpwnam(String(user))
        guard let home = entry?.pointee.pw_dir else { return path }
        return String(cString: home) + path[slash...]
    }

    /// A relative path against the working folder, its "." and ".." segments resolved as a URL's are (RFC 3986).
    private static func absolute(_ path: String) -> String {
        guard let cwd = getcwd(nil, 0) else { return path }
        defer { free(cwd) }
        let folder = String(cString: cwd)
        var segments: [Substring] = []
        let merged = (folder.hasSuffix("/") ? folder : folder + "/") + path
        for segment in merged.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            switch segment {
            case ".": continue
            case "..": _ = segments.popLast()
            default: segments.append(segment)
            }
        }
        return "/" + segments.joined(separator: "/")
    }
}
