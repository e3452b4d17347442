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
        // A bare number means ns in uftrace and µs in older trail: asked for rather than guessed, except 0.
        return Double(text) == 0 ? 0 : nil
    }

    /// What is wrong with a time `parse` refused, for the option named.
    public static func problem(_ text: String, option: String) -> String {
        if let number = Double(text), number > 0 {
            return "\(option): '\(text)' has no unit; write \(text)ns, \(text)us, \(text)ms or \(text)s"
        }
        return "\(option): cannot read '\(text)' as a time (e.g. 500ns, 10us, 1.5ms, 2s)"
    }
}
