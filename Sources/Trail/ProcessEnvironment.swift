internal import CTrailShim

/// The environment as a dictionary, made as Foundation's `ProcessInfo.environment` made it on Linux, which the
/// logger read before: each entry split at its first "=", one without any skipped, and of a name given twice the
/// last value kept (getenv and the C side's settings take the first).
enum ProcessEnvironment {
    static func variables() -> [String: String] {
        var variables: [String: String] = [:]
        guard var entry = trail_environ() else { return variables }
        while let text = entry.pointee {
            let variable = String(cString: text)
            if let equals = variable.firstIndex(of: "=") {
                variables[String(variable[..<equals])] = String(variable[variable.index(after: equals)...])
            }
            entry += 1
        }
        return variables
    }
}
