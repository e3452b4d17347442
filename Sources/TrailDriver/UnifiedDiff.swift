/// A unified diff for `--dry-run`. Rewrites never add or remove lines, so old and new align line by line;
/// hunks group changed lines with three lines of context. Texts of different lengths (a manifest `trail setup`
/// edits) are aligned by their longest common subsequence of lines.
public enum UnifiedDiff {
    public static func make(old: [UInt8], new: [UInt8], path: String, context: Int = 3) -> String {
        let a = lines(old)
        let b = lines(new)
        let steps = a.count == b.count ? paired(a, b) : a.count * b.count <= 4_000_000 ? aligned(a, b) : whole(a, b)
        let changed = steps.indices.filter { steps[$0].kind != .same }
        guard !changed.isEmpty else { return "" }
        var out = "--- a/\(path)\n+++ b/\(path)\n"
        var index = 0
        while index < changed.count {
            // Extend the hunk while the next change is within two contexts of the last one.
            var last = index
            while last + 1 < changed.count, changed[last + 1] - changed[last] <= 2 * context { last += 1 }
            let hunk = steps[max(0, changed[index] - context) ..< min(steps.count, changed[last] + context + 1)]
            let oldCount = hunk.filter { $0.kind != .added }.count
            let newCount = hunk.filter { $0.kind != .removed }.count
            let first = hunk.first!
            out +=
                "@@ -\(first.old + (oldCount == 0 ? 0 : 1)),\(oldCount) +\(first.new + (newCount == 0 ? 0 : 1)),\(newCount) @@\n"
            for step in hunk {
                switch step.kind {
                case .same: out += " " + a[step.old] + "\n"
                case .removed: out += "-" + a[step.old] + "\n"
                case .added: out += "+" + b[step.new] + "\n"
                }
            }
            index = last + 1
        }
        return out
    }

    private enum Kind { case same, removed, added }
    /// A line kept, removed or added, with its index in the old and the new text (where the other side is).
    private typealias Step = (kind: Kind, old: Int, new: Int)

    /// Texts of equal length, line by line: a run of changed lines is removed, then added.
    private static func paired(_ a: [String], _ b: [String]) -> [Step] {
        var steps: [Step] = []
        var line = 0
        while line < a.count {
            if a[line] == b[line] {
                steps.append((.same, line, line))
                line += 1
                continue
            }
            var run = line
            while run < a.count, a[run] != b[run] { run += 1 }
            steps += (line ..< run).map { (.removed, $0, line) } + (line ..< run).map { (.added, run, $0) }
            line = run
        }
        return steps
    }

    /// Lines kept, removed and added, from the longest common subsequence of lines.
    private static func aligned(_ a: [String], _ b: [String]) -> [Step] {
        let n = a.count
        let m = b.count
        let width = m + 1
        // common[i * width + j]: the longest common subsequence of a[i...] and b[j...].
        var common = [Int32](repeating: 0, count: (n + 1) * width)
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                common[i * width + j] =
                    a[i] == b[j]
                    ? common[(i + 1) * width + j + 1] + 1
                    : max(common[(i + 1) * width + j], common[i * width + j + 1])
            }
        }
        var steps: [Step] = []
        var i = 0
        var j = 0
        while i < n || j < m {
            if i < n, j < m, a[i] == b[j] {
                steps.append((.same, i, j))
                i += 1
                j += 1
            } else if i < n, j == m || common[(i + 1) * width + j] >= common[i * width + j + 1] {
                steps.append((.removed, i, j))
                i += 1
            } else {
                steps.append((.added, i, j))
                j += 1
            }
        }
        return steps
    }

    /// Too large to align: every old line removed, every new one added.
    private static func whole(_ a: [String], _ b: [String]) -> [Step] {
        a.indices.map { (.removed, $0, 0) } + b.indices.map { (.added, a.count, $0) }
    }

    private static func lines(_ bytes: [UInt8]) -> [String] {
        var result = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        if result.last == "" { result.removeLast() }
        return result
    }
}
