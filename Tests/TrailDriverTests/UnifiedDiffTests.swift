import Testing
import TrailDriver

/// `--dry-run`'s diffs: hunks with three lines of context, line numbers as `patch` reads them.
@Suite struct UnifiedDiffTests {
    static func diff(_ old: String, _ new: String) -> String {
        UnifiedDiff.make(old: Array(old.utf8), new: Array(new.utf8), path: "f.swift")
    }

    static let tenLines = (1 ... 10).map { "\($0)\n" }.joined()

    @Test func sameTextsGiveNoDiff() {
        #expect(Self.diff(Self.tenLines, Self.tenLines) == "")
        #expect(Self.diff("", "") == "")
    }

    /// A rewrite keeps the line count: a changed line is removed, then added, inside its context.
    @Test func aChangedLineHasThreeLinesOfContextEachSide() {
        let new = Self.tenLines.replacingOccurrences(of: "5\n", with: "five\n")
        #expect(
            Self.diff(Self.tenLines, new)
                == "--- a/f.swift\n+++ b/f.swift\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n")
    }

    /// Texts of different lengths are aligned by their longest common subsequence of lines.
    @Test func anInsertedLineIsAlignedWithTheLinesAround() {
        #expect(
            Self.diff("a\nb\nc\n", "a\nb\nX\nc\n") == "--- a/f.swift\n+++ b/f.swift\n@@ -1,3 +1,4 @@\n a\n b\n+X\n c\n")
        #expect(Self.diff("a\nb\nc\n", "a\nc\n") == "--- a/f.swift\n+++ b/f.swift\n@@ -1,3 +1,2 @@\n a\n-b\n c\n")
    }

    @Test func aFileMadeFromNothingStartsAtLineZero() {
        #expect(Self.diff("", "x\n") == "--- a/f.swift\n+++ b/f.swift\n@@ -0,0 +1,1 @@\n+x\n")
    }

    /// Changes more than two contexts apart are separate hunks; closer ones share one.
    @Test func changesFarApartAreSeparateHunks() {
        let old = (1 ... 20).map { "\($0)\n" }.joined()
        let far = old.replacingOccurrences(of: "\n2\n", with: "\ntwo\n").replacingOccurrences(
            of: "\n19\n", with: "\nnineteen\n")
        #expect(Self.diff(old, far).components(separatedBy: "\n@@ ").count - 1 == 2, "\(Self.diff(old, far))")
        let near = old.replacingOccurrences(of: "\n5\n", with: "\nfive\n").replacingOccurrences(
            of: "\n11\n", with: "\neleven\n")
        #expect(Self.diff(old, near).components(separatedBy: "\n@@ ").count - 1 == 1, "\(Self.diff(old, near))")
    }
}
