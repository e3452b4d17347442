import Foundation
import Testing
import TrailTestSupport

@testable import TrailRewriter

/// Build copies (`--line-directive`) keep every line and column: code after a body's brace moves to a line of
/// its own, put back in place by `#sourceLocation` and padding.
@Suite struct ColumnTests {
    static let file = "/abs/Sources/App/Store.swift"

    private func copy(_ source: String, closures: Bool = false) throws -> String {
        try instrumented(source, module: "App", path: Self.file, closures: closures, lineDirectiveFile: Self.file)
    }

    @Test func codeAfterTheBraceMovesToALineOfItsOwnAtItsColumn() throws {
        let source = """
            import Foundation
            struct Store {
                func total() -> Int { items.count + extra }
                func log() { print(1) }
                func next() throws -> Int { try read() }
                func count(of items: [Int]) -> Int { items.count }
            }
            func f() -> Int { 1 }

            """
        let directive = #"#sourceLocation(file: "/abs/Sources/App/Store.swift", line: "#
        // A value's exit folds around it (`return Trail.exit(returning:` takes 29 columns, so with less room
        // it goes on the line before); a `try` keeps the `defer` and a bare `return`.
        let expected = """
            import Foundation/*<trail*/; import enum Trail.Trail/*trail>*/
            struct Store {
                func total() -> Int {/*<trail*/Trail.enter("App.Store.total() @ App/Store.swift:3");
            /*trail>*/\(directive)2)
            return Trail.exit(returning:
                                      items.count + extra/*<trail*/)/*trail>*/ }
                func log() {/*<trail*/Trail.enter("App.Store.log() @ App/Store.swift:4"); defer { Trail.exit() };
            /*trail>*/\(directive)4)
                             print(1) }
                func next() throws -> Int {/*<trail*/Trail.enter("App.Store.next() @ App/Store.swift:5"); defer { Trail.exit() };
            /*trail>*/\(directive)5)
                                    return  try read() }
                func count(of items: [Int]) -> Int {/*<trail*/Trail.enter("App.Store.count(of:) @ App/Store.swift:6");
            /*trail>*/\(directive)6)
                       return Trail.exit(returning:  items.count/*<trail*/)/*trail>*/ }
            }
            func f() -> Int {/*<trail*/Trail.enter("App.f() @ App/Store.swift:8");
            /*trail>*/\(directive)7)
            return Trail.exit(returning:
                              1/*<trail*/)/*trail>*/ }

            """
        let text = try copy(source)
        #expect(text == expected)
        // What follows the brace keeps its byte columns: the brace ends at column 25, 31 and 40.
        let lines = text.split(separator: "\n")
        #expect(lines[5].utf8.count - " items.count + extra/*<trail*/)/*trail>*/ }".utf8.count == 25)
        #expect(lines[11].utf8.count - " try read() }".utf8.count == 31)
        #expect(lines[14].utf8.count - " items.count/*<trail*/)/*trail>*/ }".utf8.count == 40)
        #expect(try stripped(text) == source)
        #expect(try copy(text) == text)
    }

    @Test func shortPrefixesTabsAndWideCharactersCountInBytes() throws {
        // A brace before column 7 leaves no room for `return `: it goes on the line before, numbered so.
        let short = "var x: Int {\nget{ 1 }\n}\n"
        let text = try copy(short)
        #expect(text.contains("get{/*<trail*/"))
        #expect(
            text.contains(
                "\n/*trail>*/#sourceLocation(file: \"\(Self.file)\", line: 1)\nreturn Trail.exit(returning:\n     1"
                    + "/*<trail*/)/*trail>*/" + " }\n"))
        #expect(try stripped(text) == short)
        // Tabs and CJK count as their bytes: the padding is the prefix's UTF-8 length.
        let wide = "struct S {\n\tfunc 名前() { print(1) }\n}\n"
        let copied = try copy(wide)
        #expect(copied.contains("\n" + String(repeating: " ", count: "\tfunc 名前() {".utf8.count) + " print(1) }\n"))
        #expect(try stripped(copied) == wide)
    }

    @Test func returnsOnLaterLinesAddNoColumns() throws {
        let source = """
            struct S {
                var name: String {
                    // a comment
                    "store"
                }
                func cond() -> Int {
                    #if DEBUG
                    1
                    #else
            2
                    #endif
                }
            }

            """
        let text = try copy(source)
        #expect(
            text.contains(
                #"Trail.enter("App.S.name.get @ App/Store.swift:2"); return Trail.exit(returning:/*trail>*/"#
                    + "\n        // a comment\n        \"store\"/*<trail*/)/*trail>*/\n"))
        #expect(
            text.contains("\n/*<trail*/#sourceLocation(file: \"\(Self.file)\", line: 7)\nreturn/*trail>*/\n        1\n")
        )
        // An expression in column 1 must not line up with its `return`.
        #expect(text.contains("\n/*<trail*/#sourceLocation(file: \"\(Self.file)\", line: 9)\n return/*trail>*/\n2\n"))
        #expect(try stripped(text) == source)
        #expect(try copy(text) == text)
    }

    @Test func zooCopiesStripExactlyAndAreStable() throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: Paths.fixture("Zoo"))
        where name.hasSuffix(".swift") {
            let source = try String(contentsOfFile: Paths.fixture("Zoo/" + name), encoding: .utf8)
            let copied = try instrumented(
                source, module: "Zoo", path: "/x/Zoo/" + name, closures: true, lineDirectiveFile: "/x/Zoo/" + name)
            if copied.hasPrefix("skipped") { continue }
            #expect(try stripped(copied) == source, "\(name)")
            #expect(
                try instrumented(
                    copied, module: "Zoo", path: "/x/Zoo/" + name, closures: true,
                    lineDirectiveFile: "/x/Zoo/" + name) == copied, "\(name)")
        }
    }
}
