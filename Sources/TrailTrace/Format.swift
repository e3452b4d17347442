import Foundation

/// Durations as uftrace prints them: three decimals and a unit, right-aligned in ten columns.
public enum DurationFormat {
    public static func format(_ nanoseconds: Double) -> String {
        let output = TextOutput()
        output.append(duration: nanoseconds)
        return output.text
    }

    /// Parses `250ns`, `10us`, `1.5ms`, `2s` (a bare number is microseconds).
    public static func parse(_ text: String) -> Double? {
        let units: [(String, Double)] = [("ns", 1), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            return Double(text.dropLast(suffix.count)).flatMap { $0 >= 0 ? $0 * scale : nil }
        }
        return Double(text).flatMap { $0 >= 0 ? $0 * 1e3 : nil }
    }
}

/// Shell-style wildcards (`*`, `?`) on function names.
public struct NamePattern: Sendable {
    let patterns: [String]

    public init(_ text: String) {
        patterns = text.split(separator: ",").map(String.init)
    }

    public func matches(_ name: String) -> Bool {
        patterns.contains { fnmatch($0, name, 0) == 0 }
    }
}
