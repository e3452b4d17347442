/// A unified diff for `--dry-run`. Rewrites never add or remove lines, so old and new align line by line;
/// hunks group changed lines with three lines of context.
public enum UnifiedDiff {
    public static func make(old: [UInt8], new: [UInt8], path: String, context: Int = 3) -> String {
        let a = lines(old), b = lines(new)
        guard a.count == b.count else { return whole(a, b, path: path) }
        let changed = (0 ..< a.count).filter { a[$0] != b[$0] }
        guard !changed.isEmpty else { return "" }
        var out = "--- a/\(path)\n+++ b/\(path)\n"
        var index = 0
        while index < changed.count {
            // Extend the hunk while the next change is within two contexts of the last one.
            var last = index
            while last + 1 < changed.count, changed[last + 1] - changed[last] <= 2 * context { last += 1 }
            let start = max(0, changed[index] - context), end = min(a.count, changed[last] + context + 1)
            out += "@@ -\(start + 1),\(end - start) +\(start + 1),\(end - start) @@\n"
            var line = start
            while line < end {
                if a[line] == b[line] {
                    out += " " + a[line] + "\n"
                    line += 1
                    continue
                }
                var run = line
                while run < end, a[run] != b[run] { run += 1 }
                for old in line ..< run { out += "-" + a[old] + "\n" }
                for new in line ..< run { out += "+" + b[new] + "\n" }
                line = run
            }
            index = last + 1
        }
        return out
    }

    private static func whole(_ a: [String], _ b: [String], path: String) -> String {
        var out = "--- a/\(path)\n+++ b/\(path)\n@@ -1,\(a.count) +1,\(b.count) @@\n"
        for line in a { out += "-" + line + "\n" }
        for line in b { out += "+" + line + "\n" }
        return out
    }

    private static func lines(_ bytes: [UInt8]) -> [String] {
        var result = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        if result.last == "" { result.removeLast() }
        return result
    }
}
