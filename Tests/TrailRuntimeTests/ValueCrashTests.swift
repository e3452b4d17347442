import Foundation
import Testing
import TrailTestSupport

/// A crash block's breadcrumbs in a build with values (issue 41): the last calls with what they were given and
/// returned, redacted as recorded.
@Suite struct ValueCrashTests {
    static let program = """
        import Trail

        func square(n: Int) -> Int { n * n }
        func login(user: String, token: String) -> Bool { !token.isEmpty }
        func explode(at code: Int, note: String) -> Int {
            UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = code
            return code
        }
        try Trail.bootstrap(Trail.Configuration(appName: "app", directory: CommandLine.arguments[1]))
        print(square(n: 7), login(user: "ann", token: "s3cr3t"))
        _ = explode(at: 3, note: "boom")

        """

    @Test func breadcrumbsCarryTheValues() throws {
        let directory = Paths.temporaryDirectory("value-crash")
        let app = try ValuesProgram.build(Self.program, in: directory)
        let logs = directory + "/logs"
        let result = try run(
            app, [logs],
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": directory + "/app.trace", "TRAIL_LOG": "file"])
        #expect(result.signal == SIGSEGV)
        var text = ""
        for name in (FileManager.default.enumerator(atPath: logs)?.allObjects as? [String]) ?? [] {
            text += (try? String(contentsOfFile: logs + "/" + name, encoding: .utf8)) ?? ""
        }
        let crumbs = text.split(separator: "\n").filter { $0.hasPrefix("crumb ") }.map {
            $0.split(separator: " ", maxSplits: 2).last.map(String.init) ?? ""
        }
        #expect(crumbs.contains("enter App.square(n: 7) @ App/main.swift:3"), "\(crumbs)")
        #expect(crumbs.contains("exit App.square(n:) = 49 @ App/main.swift:3"), "\(crumbs)")
        #expect(crumbs.contains("enter App.login(user: \"ann\", token: <redacted>) @ App/main.swift:4"), "\(crumbs)")
        #expect(crumbs.contains("exit App.login(user:token:) = true @ App/main.swift:4"), "\(crumbs)")
        #expect(crumbs.contains("enter App.explode(at: 3, note: \"boom\") @ App/main.swift:5"), "\(crumbs)")
        #expect(!text.contains("s3cr3t"))
    }
}
