import Foundation
import TrailTrace

/// `trail report --diff OLD NEW`: two profiles compared function by function, the largest regression (the
/// largest rise in total time) first, as `uftrace report --diff` with its `full` policy shows them.
public struct ProfileDiff {
    public struct Row: Sendable {
        public var name: String
        /// Nil where the function was not called in that run.
        public var old: Profile.Entry?
        public var new: Profile.Entry?

        public var totalChange: Double { (new?.total ?? 0) - (old?.total ?? 0) }
        public var selfChange: Double { (new?.selfTime ?? 0) - (old?.selfTime ?? 0) }
        public var callsChange: Int { (new?.calls ?? 0) - (old?.calls ?? 0) }
    }

    /// Which rows to keep: a change in total time of at least `time` nanoseconds, or of at least `percent` of
    /// the old total (a function new or gone always changed by 100%), either way.
    public enum Threshold: Sendable {
        case time(Double)
        case percent(Double)

        /// `50us`, `1.5ms` (a time with its unit), or `10%`.
        public init?(_ text: String) {
            if text.hasSuffix("%") {
                guard let value = Double(text.dropLast()), value >= 0 else { return nil }
                self = .percent(value)
            } else {
                guard let value = DurationFormat.parse(text) else { return nil }
                self = .time(value)
            }
        }

        func keeps(_ row: Row) -> Bool {
            switch self {
            case .time(let nanoseconds): return abs(row.totalChange) >= nanoseconds
            case .percent(let percent):
                guard let old = row.old, old.total > 0, row.new != nil else { return true }
                return abs(row.totalChange) / old.total * 100 >= percent
            }
        }
    }

    public let rows: [Row]

    public init(old: Profile, new: Profile, threshold: Threshold? = nil) {
        var byName: [String: Row] = [:]
        for entry in old.entries(.name) { byName[entry.name, default: Row(name: entry.name)].old = entry }
        for entry in new.entries(.name) { byName[entry.name, default: Row(name: entry.name)].new = entry }
        var rows = Array(byName.values)
        if let threshold { rows = rows.filter(threshold.keeps) }
        rows.sort { a, b in
            if a.totalChange != b.totalChange { return a.totalChange > b.totalChange }
            if a.selfChange != b.selfChange { return a.selfChange > b.selfChange }
            return a.name < b.name
        }
        self.rows = rows
    }

    /// The table; `oldName` and `newName` say what was compared.
    public func render(oldName: String, newName: String) -> String {
        let output = TextOutput()
        output.append("#\n# trail report --diff\n#  old: \(oldName)\n#  new: \(newName)\n#\n")
        for label in ["Total time", "Self time", "Calls"] {
            let text = label + " (old, new, change)"
            output.append(String(repeating: " ", count: 38 - text.count) + text)
        }
        output.append("  Function\n")
        let rule = "  " + String(repeating: "=", count: 36)
        output.append(rule + rule + rule + "  ====================\n")
        for row in rows {
            time(row.old?.total, into: output)
            time(row.new?.total, into: output)
            change(row.totalChange, into: output)
            time(row.old?.selfTime, into: output)
            time(row.new?.selfTime, into: output)
            change(row.selfChange, into: output)
            count(row.old?.calls, into: output)
            count(row.new?.calls, into: output)
            let calls = row.callsChange
            output.append("  " + String(repeating: " ", count: max(0, 11 - String(abs(calls)).count)))
            output.append((calls < 0 ? "-" : "+") + String(abs(calls)))
            output.append("  " + row.name + "\n")
        }
        return output.text
    }

    /// Ten columns as the viewers print a duration, or `-` where the function was not called.
    private func time(_ nanoseconds: Double?, into output: TextOutput) {
        output.append("  ")
        guard let nanoseconds else { return output.append("         -") }
        output.append(duration: nanoseconds)
    }

    /// A duration's change: its sign, then the duration in eleven columns.
    private func change(_ nanoseconds: Double, into output: TextOutput) {
        let text = InfoText.trimmed(abs(nanoseconds))
        let signed = (nanoseconds < 0 ? "-" : "+") + text
        output.append("  " + String(repeating: " ", count: max(0, 12 - signed.count)) + signed)
    }

    private func count(_ calls: Int?, into output: TextOutput) {
        let text = calls.map(String.init) ?? "-"
        output.append("  " + String(repeating: " ", count: max(0, 10 - text.count)) + text)
    }
}
