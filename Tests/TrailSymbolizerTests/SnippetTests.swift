import Foundation
import Testing
import TrailTestSupport

@testable import TrailSymbolizer

/// `symbolize --snippet` shows the lines the compiler numbered, through `#sourceLocation`: a plugin copy of
/// `main.swift` names itself after a `#if DEBUG` line, so reading it by physical line was off by two.
@Suite struct SnippetTests {
    static let copy = """
        #if DEBUG
        #sourceLocation(file: "FILE", line: 1)
        import Foundation/*<trail*/; import enum Trail.Trail; import TrailExit/*trail>*/

        func crash(_ values: [Int]) -> Int {/*<trail*/Trail.enter("App.crash(_:) @ App/main.swift:3"); defer { Trail.exit() };
        /*trail>*/#sourceLocation(file: "FILE", line: 3)
                                            return  values[5] }

        print(crash([1]))
        #sourceLocation()
        #else
        #sourceLocation(file: "FILE", line: 1)
        import Foundation

        func crash(_ values: [Int]) -> Int { values[5] }

        print(crash([1]))
        #sourceLocation()
        #endif

        """

    @Test func aPluginCopyOfMainIsReadThroughItsDirectives() throws {
        let folder = Paths.temporaryDirectory("snippet")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/main.swift"
        try Self.copy.replacingOccurrences(of: "FILE", with: path).write(
            toFile: path, atomically: true, encoding: .utf8)
        #expect(
            CrashOutputFormat.snippet(path, line: 3, context: 1) == [
                "      2 | ",
                ">     3 | func crash(_ values: [Int]) -> Int {",
                ">     3 |                                     return  values[5] }",
                "      4 | ",
            ])
        #expect(
            CrashOutputFormat.snippet(path, line: 5, context: 1) == [
                "      4 | ",
                ">     5 | print(crash([1]))",
            ])
        // A file without directives is read as it is.
        let plain = folder + "/plain.swift"
        try "a\nb\nc\n".write(toFile: plain, atomically: true, encoding: .utf8)
        #expect(CrashOutputFormat.snippet(plain, line: 2, context: 1) == ["      1 | a", ">     2 | b", "      3 | c"])
        #expect(CrashOutputFormat.snippet(plain, line: 9, context: 1) == [])
    }
}
