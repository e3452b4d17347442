import Foundation
import Testing
import TrailTestSupport

/// `trail info`, `trail graph` and `trail report --diff` on the ItemStore demo's trace, against transcripts
/// checked by hand, with what varies from run to run (times, pids, ids, paths) masked.
@Suite struct ViewerVerbsTests {
    static let trace: String = {
        let directory = Paths.temporaryDirectory("viewers")
        let trace = directory + "/demo.trace"
        _ = try! run(
            ItemStoreTests.traced, ["--store", directory + "/items.json", "demo"],
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": trace], check: true)
        return trace
    }()

    /// Durations (`12.345 us`, right-aligned or not) become `<time>`, keeping the columns.
    static func maskTimes(_ text: String) -> String {
        text.replacingOccurrences(of: #" *\d+\.\d{3} (us|ms| s)"#, with: "    <time>", options: .regularExpression)
    }

    static func expect(_ actual: String, _ fixture: String) {
        let expected = Transcript.read(Paths.fixture("ItemStore/" + fixture))
        #expect(Transcript.firstDifference(actual, expected) == nil, "\(fixture):\n\(actual)")
    }

    @Test func verbsAreListedWithTheirHelp() throws {
        let top = try run(Paths.trail, ["--help"], check: true)
        for verb in ["graph", "info"] {
            #expect(top.stdout.contains("\n  \(verb) "), "trail --help lists \(verb)")
            let help = try run(Paths.trail, [verb, "--help"], check: true)
            #expect(help.stdout.contains("Usage: trail \(verb)"))
        }
        let report = try run(Paths.trail, ["report", "--help"], check: true)
        #expect(report.stdout.contains("trail report --diff OLD [--threshold TIME|N%] NEW"))
        let noFunction = try run(Paths.trail, ["graph"])
        #expect(noFunction.status == 2 && noFunction.stderr.contains("trail graph: name the function to graph"))
    }

    @Test func infoMatchesTheTranscript() throws {
        let info = try run(Paths.trail, ["info", Self.trace], check: true)
        let masked = info.stdout.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            let key = line.prefix(18)
            // Which threads ran the demo's tasks is the scheduler's choice.
            let varying = [
                "# trace ", "# program ", "# command line ", "# build id ", "# records ", "# host ", "# pid ",
                "# started ", "# size ", "# trace id ", "# threads ",
            ]
            if varying.contains(where: { key.hasPrefix($0) }) { return key + ": <varies>" }
            return Self.maskTimes(String(line))
        }.joined(separator: "\n")
        Self.expect(masked, "demo-info.txt")
        // The rows masked above for their paths, checked here against what ran.
        let folder = (Self.trace as NSString).deletingLastPathComponent
        let command = ItemStoreTests.traced + " --store " + folder + "/items.json demo"
        #expect(info.stdout.contains("\n# command line    : \(command)\n"))
        let buildID = try #require(Self.gnuBuildID(ItemStoreTests.traced))
        #expect(info.stdout.contains("\n# build id        : \(buildID)\n"))
        // Each of the 45 calls wrote an entry and an exit; async calls add task records, as scheduling falls.
        let records = info.stdout.split(separator: "\n").first { $0.hasPrefix("# records ") }
        #expect((records.flatMap { Int($0.split(separator: " ").last!) } ?? 0) >= 90)
        let bad = Paths.temporaryDirectory("viewers") + "/not.trace"
        try Data("hello".utf8).write(to: URL(fileURLWithPath: bad))
        let refused = try run(Paths.trail, ["info", bad])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("trail: skipping \(bad): not a trail trace file"))
    }

    /// The 20-byte GNU build ID note of an executable (namesz 4, descsz 20, type 3, "GNU"), in hex.
    static func gnuBuildID(_ path: String) -> String? {
        guard let bytes = FileManager.default.contents(atPath: path).map(Array.init) else { return nil }
        let note: [UInt8] = [4, 0, 0, 0, 20, 0, 0, 0, 3, 0, 0, 0] + Array("GNU\0".utf8)
        guard
            let start = (0 ..< (bytes.count - note.count - 20)).first(where: { at in
                note.indices.allSatisfy { bytes[at + $0] == note[$0] }
            })
        else { return nil }
        return bytes[(start + note.count) ..< (start + note.count + 20)].map { String(format: "%02x", $0) }.joined()
    }

    @Test func graphMatchesTheTranscript() throws {
        let graph = try run(Paths.trail, ["graph", "ItemStore.Store.position(of:)", Self.trace], check: true)
        Self.expect(Self.maskTimes(graph.stdout), "demo-graph-position.txt")
        let below = try run(Paths.trail, ["graph", "-f", "total", "ItemStore.Demo.run(on:)", Self.trace], check: true)
        Self.expect(Self.maskTimes(below.stdout), "demo-graph-run.txt")
        let missing = try run(Paths.trail, ["graph", "Nothing.here()", Self.trace])
        #expect(missing.status == 1 && missing.stderr.contains("trail graph: no call of 'Nothing.here()'"))
        let badField = try run(Paths.trail, ["graph", "-f", "avg", "x", Self.trace])
        #expect(badField.status == 2 && badField.stderr.contains("--output-fields: total or self"))
    }

    /// The trace against itself: every change is zero, so the rows fall back to name order.
    @Test func diffMatchesTheTranscript() throws {
        let diff = try run(Paths.trail, ["report", "--diff", Self.trace, Self.trace], check: true)
        let masked = Self.maskTimes(diff.stdout).replacingOccurrences(of: Self.trace, with: "demo.trace")
        Self.expect(masked, "demo-diff.txt")
        let quiet = try run(Paths.trail, ["report", "--diff", Self.trace, "--threshold", "1ns", Self.trace])
        #expect(quiet.status == 0 && quiet.stdout.split(separator: "\n").count == 7, "only the header")
        let lonely = try run(Paths.trail, ["report", "--threshold", "5%", Self.trace])
        #expect(lonely.status == 2 && lonely.stderr.contains("--threshold means something only with --diff"))
        let noNew = try run(Paths.trail, ["report", "--diff", Self.trace])
        #expect(noNew.status == 2 && noNew.stderr.contains("--diff OLD needs the NEW traces"))
    }
}
