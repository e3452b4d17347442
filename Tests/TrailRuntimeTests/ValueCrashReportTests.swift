import Foundation
import Testing
import TrailTestSupport

/// `trail report --crash` on a build with values (issue 41): its "last calls" show what each call was given and
/// returned, from the crash block's breadcrumbs, redacted as recorded, in Markdown and JSON.
@Suite struct ValueCrashReportTests {
    @Test func theLastCallsShowTheirValues() throws {
        let directory = Paths.temporaryDirectory("value-crash-report")
        let app = try ValuesProgram.build(ValueCrashTests.program, in: directory)
        let logs = directory + "/logs"
        let crashed = try run(app, [logs], environment: ["TRAIL_TRACE": "record", "TRAIL_LOG": "file"])
        #expect(crashed.signal == SIGSEGV)

        let report = try run(Paths.trail, ["report", "--crash", logs], check: true).stdout
        // "          +12 us  enter      App.square(n: 7) @ App/main.swift:3" -> "enter App.square(n: 7) @ ..."
        let calls = report.split(separator: "\n").compactMap { line -> String? in
            guard let start = line.range(of: #"(async-)?(enter|exit) +App\."#, options: .regularExpression) else {
                return nil
            }
            return line[start.lowerBound...].replacingOccurrences(of: #" +"#, with: " ", options: .regularExpression)
        }
        #expect(
            calls == [
                "async-enter App.crashLater(at: 3) @ App/main.swift:16",
                "enter App.square(n: 7) @ App/main.swift:3", "exit App.square(n:) = 49 @ App/main.swift:3",
                "enter App.login(user: \"ann\", token: <redacted>) @ App/main.swift:4",
                "exit App.login(user:token:) = true @ App/main.swift:4",
                "async-enter App.fetch(id: 12) @ App/main.swift:9",
                "async-exit App.fetch(id:) = \"item 12\" @ App/main.swift:9",
                "async-enter App.fail(code: 1) @ App/main.swift:11",
                "async-exit App.fail(code:) throws Gone() @ App/main.swift:11",
                "enter App.explode(at: 3, note: \"boom\") @ App/main.swift:5",
            ], "\(report)")
        #expect(!report.contains("s3cr3t"))

        let json = try run(Paths.trail, ["report", "--crash", "--json", logs], check: true).stdout
        #expect(json.contains(#"App.explode(at: 3, note: \"boom\") @ App/main.swift:5"#), "\(json)")
        #expect(!json.contains("s3cr3t"))
    }
}
