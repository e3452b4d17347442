/// XCTest's results as it prints them, for a run without `--parallel`: swift-corelibs-xctest writes no xUnit file
/// then (SwiftPM writes one only for parallel runs), but ends each test with one line on standard output,
/// `Test Case 'Class.method' passed (0.001 seconds)` (or `failed`, or `skipped`), at the start of a line and
/// only once per test, so a line of that exact shape is read as a result.
final class XCTestConsole {
    private(set) var cases: [TestSummary.Case] = []

    func read(_ line: String) {
        guard line.hasPrefix("Test Case '") else { return }
        let rest = line.dropFirst("Test Case '".count)
        for (word, failed) in [("' passed (", false), ("' failed (", true), ("' skipped (", false)] {
            guard let end = rest.range(of: word), line.hasSuffix(")") else { continue }
            if word == "' skipped (" { return }  // neither passed nor failed, as swift test counts it
            let name = rest[..<end.lowerBound]
            // `Class.method`; on Darwin `-[Module.Class method]`.
            let trimmed =
                name.hasPrefix("-[")
                ? name.dropFirst(2).dropLast().replacingOccurrences(of: " ", with: ".") : String(name)
            guard let dot = trimmed.lastIndex(of: ".") else { return }
            cases.append(
                TestSummary.Case(
                    suite: String(trimmed[..<dot]), name: String(trimmed[trimmed.index(after: dot)...]), failed: failed)
            )
            return
        }
    }
}
