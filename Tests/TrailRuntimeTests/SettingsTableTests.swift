import Foundation
import Testing
import TrailTestSupport

/// The C start-up (settings.c's table: the tracer's and crash handler's variables) and Swift's Settings (the
/// logger's) read the same kinds of value. The same inputs go through both, each variable on the side that reads
/// it, and every kind must come out the same way on either side: the same result and the same line.
@Suite struct SettingsTableTests {
    struct Row: CustomStringConvertible, Sendable {
        var name: String
        var value: String
        var result: String
        var message: String
        var description: String { "\(name)=\(value)" }
    }

    static func row(_ name: String, _ value: String, _ result: String, _ why: String = "", using: String = "") -> Row {
        Row(
            name: name, value: value, result: result,
            message: why.isEmpty ? "" : "\(name)=\(value) \(why); using \(using)")
    }

    static let notAWholeNumber = "is not a whole number"
    static let notASize = "is not a size such as 65536, 64K, 10M or 1G"
    static let notASwitch = "is not one of 1, 0, true, false, yes, no, on, off"
    static let huge = "99999999999999999999"

    /// Per kind: a variable C reads and one Swift reads, each given good, out of range, malformed, empty, huge and
    /// negative values.
    static let rows: [Row] = [
        // Counts.
        row("TRAIL_CRASH_BREADCRUMBS", "7", "7"),
        row("TRAIL_CRASH_BREADCRUMBS", "2000", "1024", "is out of range (0 to 1024)", using: "1024"),
        row("TRAIL_CRASH_BREADCRUMBS", "lots", "32", notAWholeNumber, using: "32"),
        row("TRAIL_CRASH_BREADCRUMBS", "", "32"),
        row("TRAIL_CRASH_BREADCRUMBS", huge, "1024", "is out of range (0 to 1024)", using: "1024"),
        row("TRAIL_CRASH_BREADCRUMBS", "-5", "32", notAWholeNumber, using: "32"),
        row("TRAIL_CRASH_BREADCRUMBS", "+5", "32", notAWholeNumber, using: "32"),
        row("TRAIL_TRACE_DEPTH", "0", "0"),
        row("TRAIL_TRACE_KEEP_FILES", "1000001", "1000000", "is out of range (0 to 1000000)", using: "1000000"),
        row("TRAIL_LOG_FLUSH_MS", "7", "7"),
        row("TRAIL_LOG_FLUSH_MS", "70000", "60000", "is out of range (1 to 60000)", using: "60000"),
        row("TRAIL_LOG_FLUSH_MS", "lots", "50", notAWholeNumber, using: "50"),
        row("TRAIL_LOG_FLUSH_MS", "", "50"),
        row("TRAIL_LOG_FLUSH_MS", huge, "60000", "is out of range (1 to 60000)", using: "60000"),
        row("TRAIL_LOG_FLUSH_MS", "-5", "50", notAWholeNumber, using: "50"),
        row("TRAIL_LOG_FLUSH_MS", "+5", "50", notAWholeNumber, using: "50"),
        row("TRAIL_LOG_MAX_FILES", "0", "1000000"),
        // Sizes.
        row("TRAIL_TRACE_BUFFER", "64K", "64K"),
        row("TRAIL_TRACE_BUFFER", "1K", "16K", "is out of range (16K to 4G)", using: "16K"),
        row("TRAIL_TRACE_BUFFER", "garbage", "32M", notASize, using: "32M"),
        row("TRAIL_TRACE_BUFFER", "", "32M"),
        row("TRAIL_TRACE_BUFFER", huge, "4G", "is out of range (16K to 4G)", using: "4G"),
        row("TRAIL_TRACE_BUFFER", "-5", "32M", notASize, using: "32M"),
        row(
            "TRAIL_TRACE_MAX_SIZE", "12x", "default", notASize,
            using: "the default (1G, at most a tenth of the free space)"),
        row("TRAIL_TRACE_MAX_SIZE", "0", "0"),
        row("TRAIL_TRACE_MAX_SIZE", "2000T", "1024T", "is out of range (256K to 1024T)", using: "1024T"),
        row("TRAIL_TRACE_MAX_SIZE", "100K", "256K", "is out of range (256K to 1024T)", using: "256K"),
        row("TRAIL_LOG_MAX_SIZE", "64K", "64K"),
        row("TRAIL_LOG_MAX_SIZE", "1K", "4K", "is out of range (4K to 1T)", using: "4K"),
        row("TRAIL_LOG_MAX_SIZE", "garbage", "10M", notASize, using: "10M"),
        row("TRAIL_LOG_MAX_SIZE", "", "10M"),
        row("TRAIL_LOG_MAX_SIZE", huge, "1T", "is out of range (4K to 1T)", using: "1T"),
        row("TRAIL_LOG_MAX_SIZE", "-5", "10M", notASize, using: "10M"),
        row("TRAIL_LOG_MAX_SIZE", "0", "1T"),
        // Switches.
        row("TRAIL_CRASH", "0", "0"),
        row("TRAIL_CRASH", "YES", "1"),
        row("TRAIL_CRASH", "nope", "1", notASwitch, using: "the program's setting"),
        row("TRAIL_CRASH", "", "1"),
        row("TRAIL_CRASH", huge, "1", notASwitch, using: "the program's setting"),
        row("TRAIL_CRASH", "-1", "1", notASwitch, using: "the program's setting"),
        row("TRAIL_LOG_DURABLE", "On", "1"),
        row("TRAIL_LOG_DURABLE", "sure", "0", notASwitch, using: "0"),
        row("TRAIL_LOG_DURABLE", "", "0"),
        row("TRAIL_LOG_DURABLE", huge, "0", notASwitch, using: "0"),
        row("TRAIL_LOG_DURABLE", "-1", "0", notASwitch, using: "0"),
        // Names, in any case.
        row("TRAIL_TRACE", "RECORD", "record"),
        row("TRAIL_TRACE", "1", "log"),
        row("TRAIL_TRACE", "verbose", "off", "is not one of off, log, record", using: "off"),
        row("TRAIL_TRACE", "", "off"),
        row("TRAIL_TRACE", "-1", "off", "is not one of off, log, record", using: "off"),
        row("TRAIL_TRACE_KEEP", "First", "first"),
        row("TRAIL_TRACE_KEEP", "middle", "last", "is not one of last, first", using: "last"),
        row("TRAIL_LOG", "File", "file"),
        row("TRAIL_LOG", "disk", "automatic", "is not one of automatic, console, file, tee", using: "automatic"),
        row("TRAIL_LOG", "", "automatic"),
        row(
            "TRAIL_LOG_LEVEL", "loud", "info", "is not one of trace, debug, info, notice, warning, error, critical",
            using: "info"),
        // Durations (Swift's alone).
        row("TRAIL_LOG_MAX_AGE", "1h", "3600s"),
        row(
            "TRAIL_LOG_MAX_AGE", "soon", "none", "is not a duration such as 90, 90s, 15m, 1h or 1d",
            using: "no age limit"),
        row("TRAIL_LOG_MAX_AGE", "-5", "none", "is out of range (more than 0, at most 366d)", using: "no age limit"),
    ]

    /// "side\tNAME\tVALUE\tresult\tmessage" lines, one per side that reads NAME.
    func answers(_ settings: [String]) throws -> [(
        side: String, name: String, value: String, result: String, message: String
    )] {
        let output = try run(RuntimeProbe.path, RuntimeProbe.arguments(.settings, "/") + settings, check: true).stdout
        return output.split(separator: "\n").map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return (fields[0], fields[1], fields[2], fields[3], fields.count > 4 ? fields[4] : "")
        }
    }

    @Test func everyKindOfValueComesOutAlikeOnBothSides() throws {
        let answers = try answers(Self.rows.map(\.description))
        for row in Self.rows {
            let given = answers.filter { $0.name == row.name && $0.value == row.value }
            #expect(!given.isEmpty, "no side reads \(row)")
            for answer in given {
                #expect(answer.result == row.result, "\(answer.side): \(row) gave \(answer.result)")
                #expect(answer.message == row.message, "\(answer.side): \(row) said \(answer.message)")
            }
        }
        // Both sides answered: the table covers C's settings and Swift's.
        #expect(Set(answers.map(\.side)) == ["c", "swift"])
    }

    /// Each variable's default is the one `trail --help` shows (Docs/settings.md is its Markdown form).
    @Test func defaultsAreTheOnesTrailHelpShows() throws {
        let documented = Transcript.read(Paths.packageRoot + "/Docs/settings.md").split(separator: "\n").compactMap {
            line -> (String, String)? in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, cells[0].hasPrefix("`TRAIL_") else { return nil }
            return (cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`")), cells[1])
        }
        let values = Dictionary(documented, uniquingKeysWith: { first, _ in first })
        let answers = try answers(values.keys.sorted().flatMap { ["\($0)=", "\($0)=!"] })
        var checked = 0
        for answer in answers where answer.value.isEmpty && !answer.result.isEmpty {
            let shown = try #require(values[answer.name])
            if answer.result == "default" {
                // A default worked out from the free space: the malformed value's line says it in the same words.
                let said = answers.first { $0.name == answer.name && $0.side == answer.side && $0.value == "!" }
                let words = said?.message.components(separatedBy: "using the default ").last ?? ""
                #expect(shown.contains("(default " + words.dropFirst()), "\(answer.name): \(shown) vs \(words)")
            } else {
                #expect(
                    shown.contains("(default \(answer.result)") || shown.contains("\(answer.result) (default"),
                    "\(answer.side): \(answer.name) defaults to \(answer.result), but trail --help says \(shown)")
            }
            checked += 1
        }
        #expect(checked >= 18, "\(answers)")
    }
}
