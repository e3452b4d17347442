import Foundation

/// Durations as uftrace prints them: three decimals and a unit, right-aligned in ten columns.
public enum DurationFormat {
    public static func format(_ nanoseconds: Double) -> String {
        let (value, unit): (Double, String) = switch nanoseconds {
        case ..<1_000_000: (nanoseconds / 1e3, "us")
        case ..<1_000_000_000: (nanoseconds / 1e6, "ms")
        default: (nanoseconds / 1e9, " s")
        }
        return String(format: "%7.3f %@", value, unit)
    }

    /// Parses `250ns`, `10us`, `1.5ms`, `2s` (a bare number is microseconds).
    public static func parse(_ text: String) -> Double? {
        let units: [(String, Double)] = [("ns", 1), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            return Double(text.dropLast(suffix.count)).map { $0 * scale }
        }
        return Double(text).map { $0 * 1e3 }
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
