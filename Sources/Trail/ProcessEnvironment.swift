internal import CTrailShim

#if canImport(Glibc)
internal import Glibc
#endif

/// The environment as a dictionary, made as Foundation's `ProcessInfo.environment` made it on Linux, which the
/// logger read before: each entry split at its first "=", one without any skipped, and of a name given twice the
/// last value kept (getenv and the C side's settings take the first).
///
/// A privileged process (set-user-ID, set-group-ID or with file capabilities: AT_SECURE) reads none of it, as
/// secure_getenv(3) reads nothing there: its caller chose the environment, and must not choose where a process of
/// more privilege creates, renames and deletes files.
enum ProcessEnvironment {
    static var isPrivileged: Bool { trail_is_privileged() != 0 }

    static func variables() -> [String: String] {
        var variables: [String: String] = [:]
        guard !isPrivileged, var entry = trail_environ() else { return variables }
        while let text = entry.pointee {
            let variable = String(cString: text)
            if let equals = variable.firstIndex(of: "=") {
                variables[String(variable[..<equals])] = String(variable[variable.index(after: equals)...])
            }
            entry += 1
        }
        return variables
    }

    /// The home folder of the user the process runs as, from the password database.
    static func effectiveUserHome() -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getpwuid_r(geteuid(), &entry, &buffer, buffer.count, &result) == 0, result != nil,
            let home = entry.pw_dir, home.pointee != 0
        else { return nil }
        return String(cString: home)
    }
}
