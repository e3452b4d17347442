import Foundation
import Testing
import TrailTestSupport

/// A crash block's breadcrumbs in a build with values (issue 41): the last calls, async ones too, with what they were
/// given and returned, redacted as recorded.
@Suite struct ValueCrashTests {
    static let program = """
        import Trail

        func square(n: Int) -> Int { n * n }
        func login(user: String, token: String) -> Bool { !token.isEmpty }
        func explode(at code: Int, note: String) -> Int {
            UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = code
            return code
        }
        func fetch(id: Int) async -> String { "item \\(id)" }
        struct Gone: Error {}
        func fail(code: Int) async throws -> Int {
            if code > 0 { throw Gone() }
            return code
        }
        // After the yield, one thread to the crash: every call below leaves its breadcrumbs in the crashing ring.
        func crashLater(at code: Int) async -> Int {
            await Task.yield()
            print(square(n: 7), login(user: "ann", token: "s3cr3t"))
            print(await fetch(id: 12), (try? await fail(code: 1)) == nil)
            return explode(at: code, note: "boom")
        }
        try Trail.bootstrap(Trail.Configuration(appName: "app", directory: CommandLine.arguments[1]))
        _ = await crashLater(at: 3)

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
        // Async calls: arguments after the entry's AUX records, the result or error before the exit.
        #expect(crumbs.contains("async-enter App.fetch(id: 12) @ App/main.swift:9"), "\(crumbs)")
        #expect(crumbs.contains("async-exit App.fetch(id:) = \"item 12\" @ App/main.swift:9"), "\(crumbs)")
        #expect(crumbs.contains("async-exit App.fail(code:) throws Gone() @ App/main.swift:11"), "\(crumbs)")
        #expect(crumbs.contains("async-enter App.crashLater(at: 3) @ App/main.swift:16"), "\(crumbs)")
        #expect(!text.contains("s3cr3t"))
    }
}
