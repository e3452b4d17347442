import Foundation
import Testing
import TrailTestSupport

@testable import TrailRewriter

@Suite struct RewriteTests {
    @Test func exactTextOnTheBraceLineAndImportOnTheFirstImportLine() throws {
        let source = """
            // header
            import Foundation

            func add(_ a: Int, _ b: Int) -> Int { a + b }
            func log() {
                print("x")
            }
            func nothing() {}

            """
        let expected = """
            // header
            import Foundation/*<trail*/; import enum Trail.Trail; import TrailExit/*trail>*/

            func add(_ a: Int, _ b: Int) -> Int {/*<trail*/Trail.enter("M.add(_:_:) @ M/F.swift:4");/*trail>*/ /*<trail*/return /*trail>*/a + b/*<trail*/ ~>| Trail.TypedExit<Int>()/*trail>*/ }
            func log() {/*<trail*/Trail.enter("M.log() @ M/F.swift:5"); defer { Trail.exit() };/*trail>*/
                print("x")
            }
            func nothing() {/*<trail*/Trail.enter("M.nothing() @ M/F.swift:8"); Trail.exit();/*trail>*/}

            """
        #expect(try instrumented(source) == expected)
    }

    /// No line starts with the import's marker (SwiftPM would take the rest of the file for a comment and miss a
    /// one-file executable's `@main`): it follows the first import, else the first statement that is not a `#if`
    /// block (a line that stays put when lines are added below, so a one-line edit leaves the object file as it
    /// was), else it ends the file.
    @Test func importFollowsTheFirstImportOrTheFirstStatement() throws {
        let after = "}/*<trail*/; import enum Trail.Trail; import TrailExit/*trail>*/"
        #expect(try instrumented("func f() {}\n").hasSuffix(after + "\n"))
        let script = try instrumented("#!/usr/bin/env swift\nfunc f() {}\nfunc g() {}\n")
        #expect(script.hasPrefix("#!/usr/bin/env swift\nfunc f() {"))
        #expect(script.contains(after + "\nfunc g() {"))
        // An import inside #if does not count: Trail must be imported on every platform.
        let conditional = try instrumented("#if os(Linux)\nimport Glibc\n#endif\nfunc f() {}\n")
        #expect(conditional.hasPrefix("#if os(Linux)\nimport Glibc\n#endif\n"))
        #expect(conditional.hasSuffix(after + "\n"))
        let unended = try instrumented("func f() {}")
        #expect(unended.hasSuffix(after))
        #expect(try stripped(unended) == "func f() {}")
        #expect(try instrumented("func f() {} // done").hasSuffix(after + " // done"))
        #expect(try instrumented("func f() {}\n// done").hasSuffix(after + "\n// done"))
        // Only #if blocks: the import ends the file; with no newline at the end, the marker brings its own.
        let wrapped = try instrumented("#if os(Linux)\nfunc f() {}\n#endif\n")
        #expect(wrapped.hasSuffix("#endif\n/*<trail*/import enum Trail.Trail; import TrailExit/*trail>*/"))
        let wrappedUnended = try instrumented("#if os(Linux)\nfunc f() {}\n#endif")
        #expect(wrappedUnended.hasSuffix("#endif/*<trail*/\nimport enum Trail.Trail; import TrailExit/*trail>*/"))
        #expect(try stripped(wrappedUnended) == "#if os(Linux)\nfunc f() {}\n#endif")
        let attributed = try instrumented(
            "@preconcurrency import Dispatch // queues\n@main struct A { static func main() {} }\n")
        #expect(
            attributed.hasPrefix(
                "@preconcurrency import Dispatch/*<trail*/; import enum Trail.Trail; import TrailExit/*trail>*/ // queues\n@main"
            ))
    }

    @Test func asyncFunctionsAndAwaitingClosuresUseTheAsyncEntry() throws {
        let text = try instrumented("func f() async throws -> Int { 1 }\nvar v: Int { get async { 2 } }\n")
        #expect(
            text.contains(#"let __trail = Trail.enterAsync("M.f() @ M/F.swift:1"); defer { Trail.exit(__trail) };"#))
        #expect(text.contains(#"Trail.enterAsync("M.v.get @"#))
        let closures = try instrumented(
            """
            func g() {
                Task { await work(); done() }
                Task { for await x in stream { use(x) }; done() }
                Task { _ = { await other(); done() }; sync() }
            }
            """, closures: true)
        #expect(closures.contains(#"Trail.enterAsync("M.g().closure#1 @"#))
        #expect(closures.contains(#"Trail.enterAsync("M.g().closure#2 @"#))
        // The third closure's own body does not await: only the closure nested in it does.
        #expect(closures.contains(#"Trail.enter("M.g().closure#3 @"#))
        #expect(closures.contains(#"Trail.enterAsync("M.g().closure#3.closure#1 @"#))
    }

    @Test func implicitReturnsBecomeExplicitOnlyForValues() throws {
        let source = """
            func value() -> Int { 1 }
            func void() { print(1) }
            func voidWritten() -> Void { print(1) }
            func never() -> Never { fatalError() }
            func valueNever() -> Int { fatalError("no") }
            func ifExpression(_ c: Bool) -> Int { if c { 1 } else { 2 } }
            func ifStatement(_ c: Bool) -> Int { if c { return 1 } else { return 2 } }
            func switchExpression(_ x: Int) -> String {
                switch x {
                case 0: "zero"
                default: fatalError()
                }
            }
            func conditional() -> Int {
                #if DEBUG
                1
                #else
                2
                #endif
            }
            func custom() -> Never { fatalError() }
            func callsCustom() -> Int { custom() }
            var getter: String { "g" }
            var assignment: Int { get { 1 } set { _ = newValue } }
            """
        let text = try instrumented(source)
        // No import in the source: the Trail import follows the first statement, on its line; no line moves.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first?.contains("/*<trail*/; import enum Trail.Trail; import TrailExit/*trail>*/") == true)
        let returns = lines.map { $0.contains("/*<trail*/return ") }
        #expect(
            returns == [
                true, false, false, false, false, true, false,  // value ... ifStatement
                false, true, false, false, false, false,  // the switch expression, on its `switch` line
                false, false, true, false, true, false, false,  // each #if clause
                false, false, true, true,  // custom, callsCustom, getter, assignment
            ])
        #expect(lineCount(text) == lineCount(source))
    }

    @Test func skipRules() throws {
        let source = """
            @resultBuilder enum Joined { static func buildBlock(_ p: String...) -> String { p.joined() } }
            struct S {
                @inlinable func inlined() -> Int { 1 }
                @_alwaysEmitIntoClient func emitted() -> Int { 1 }
                @_transparent func transparent() -> Int { 1 }
                @ViewBuilder var body: String { "a" }
                @Joined var joined: String { "a"; "b" }
                @Custom var custom: String { "c" }
                // trail:ignore
                func ignored() {}
                /// Documented.
                /// trail:ignore
                struct IgnoredType { func inside() {} }
                @_effects(readnone) func effects() -> Int { 1 }
                func kept() {}
            }
            """
        #expect(try sites(instrumented(source, builders: ["Custom"])) == ["M.Joined.buildBlock(_:)", "M.S.kept()"])
        #expect(
            try sites(instrumented(source, inlinable: true, builders: ["Custom"])) == [
                "M.Joined.buildBlock(_:)", "M.S.inlined()", "M.S.emitted()", "M.S.kept()",
            ])
        #expect(try instrumented("// trail:ignore-file\nfunc f() {}\n") == "skipped: marked trail:ignore-file")
        // The marker only counts as a comment.
        #expect(try sites(instrumented("let s = \"trail:ignore-file\"\nfunc f() {}\n")) == ["M.f()"])
        #expect(try instrumented("func f() {}\n", module: "Trail").hasPrefix("skipped"))
    }

    @Test func idempotentAndStripIsExact() throws {
        for name in [
            "main.swift", "Shelf.swift", "Types.swift", "Effects.swift", "Skips.swift", "Closures.swift",
            "Logging.swift",
            "Builders.swift",
        ] {
            let path = "/x/Zoo/" + name
            let source = try String(contentsOfFile: Paths.fixture("Zoo/" + name), encoding: .utf8)
            let once = try instrumented(source, module: "Zoo", path: path, closures: true)
            // main.swift holds only top-level code and one-expression closures, which stay as they are.
            #expect((once != source) == (name != "main.swift"), "\(name)")
            #expect(try instrumented(once, module: "Zoo", path: path, closures: true) == once, "\(name)")
            #expect(try stripped(once) == source, "\(name)")
            #expect(lineCount(once) == lineCount(source), "\(name)")
        }
    }

    @Test func reinstrumentingRefreshesStaleSites() throws {
        let once = try instrumented("func f() {}\n")
        let edited = "\n" + once.replacingOccurrences(of: "func f()", with: "func g()")
        let again = try instrumented(edited)
        #expect(sites(again) == ["M.g()"])
        #expect(again.contains("M/F.swift:2"))
        #expect(try stripped(again) == "\nfunc g() {}\n")
    }

    @Test func stripLeavesUserTextThatLooksLikeAMarker() throws {
        let source = "let s = \"/*<trail*/ not a marker /*trail>*/\"\nfunc f() {}\n"
        let once = try instrumented(source)
        #expect(try stripped(once) == source)
        #expect(try stripped(source) == source)
    }

    @Test func neverAndBuilderDeclarationsAreFoundByScanning() {
        let source = Array(
            """
            func halt(_ m: String) -> Never { fatalError(m) }
            static func stop() ->Swift.Never { fatalError() }
            func notNever() -> NeverMind { }
            @resultBuilder
            public struct HTML { }
            @resultBuilder enum Rows {}
            """.utf8)
        #expect(DeclarationScan.neverReturning(in: source) == ["halt", "stop"])
        #expect(DeclarationScan.resultBuilders(in: source) == ["HTML", "Rows"])
    }
}
