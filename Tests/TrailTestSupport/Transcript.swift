import Foundation

/// Makes trace output comparable across runs: thread ids and durations vary, the calls do not.
public enum Transcript {
    public static func maskTrace(_ text: String) -> String {
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var masked = String(line)
            masked = masked.replacingOccurrences(of: #"^\[trail \d+\]"#, with: "[trail T]", options: .regularExpression)
            masked = masked.replacingOccurrences(
                of: #"  trace_id=[0-9a-f]{32} span_id=[0-9a-f]{16}$"#, with: "", options: .regularExpression)
            masked = masked.replacingOccurrences(
                of: #"  \d+(\.\d+)? (ns|us|ms|s)$"#, with: "  <duration>", options: .regularExpression)
            lines.append(masked)
        }
        return lines.joined(separator: "\n")
    }

    /// `trail replay` output without what varies: durations, thread ids, and which thread an async call
    /// happened to return on.
    public static func maskReplay(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            String(line)
                .replacingOccurrences(
                    of: #"^ *\d+\.\d{3} (us|ms| s) "#, with: "<duration> ", options: .regularExpression
                )
                .replacingOccurrences(of: #"\[ *\d+\]"#, with: "[TID]", options: .regularExpression)
                .replacingOccurrences(of: #" \[returned on \d+\]"#, with: "", options: .regularExpression)
        }.joined(separator: "\n")
    }

    /// The first differing line, for a readable failure message.
    public static func firstDifference(_ actual: String, _ expected: String) -> String? {
        let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0 ..< max(a.count, e.count) {
            let left = index < a.count ? String(a[index]) : "<end>"
            let right = index < e.count ? String(e[index]) : "<end>"
            if left != right { return "line \(index + 1):\n  actual:   \(left)\n  expected: \(right)" }
        }
        return nil
    }

    public static func read(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }
}
