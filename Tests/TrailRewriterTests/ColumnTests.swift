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
            }
            func f() -> Int { 1 }

            """
        let directive = #"#sourceLocation(file: "/abs/Sources/App/Store.swift", line: "#
        let expected = """
            import Foundation/*<trail*/; import enum Trail.Trail; import TrailExit/*trail>*/
            struct Store {
                func total() -> Int {/*<trail*/Trail.enter("App.Store.total() @ App/Store.swift:3");
            /*trail>*/\(directive)3)
                              return  items.count + extra/*<trail*/ ~>| Trail.TypedExit<Int>()
            /*trail>*/\(directive)3)
                                                          }
                func log() {/*<trail*/Trail.enter("App.Store.log() @ App/Store.swift:4"); defer { Trail.exit() };
            /*trail>*/\(directive)4)
                             print(1) }
            }
            func f() -> Int {/*<trail*/Trail.enter("App.f() @ App/Store.swift:6");
            /*trail>*/\(directive)6)
                      return  1/*<trail*/ ~>| Trail.TypedExit<Int>()
            /*trail>*/\(directive)6)
                                }

            """
        let text = try copy(source)
        #expect(text == expected)
        // What follows the brace keeps its byte columns (the brace ends at column 25), and so does what follows
        // the value and its exit (the closing brace is in column 47).
        let lines = text.split(separator: "\n")
        #expect(lines[4].hasPrefix(String(repeating: " ", count: 18) + "return  items.count + extra/*<trail*/"))
        #expect(lines[6] == String(repeating: " ", count: 46) + "}")
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
                "\n/*trail>*/#sourceLocation(file: \"\(Self.file)\", line: 1)\nreturn\n     1/*<trail*/ ~>| Trail.TypedExit<Int>()\n"
                    + "/*trail>*/#sourceLocation(file: \"\(Self.file)\", line: 2)\n       }\n"))
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
                #"Trail.enter("App.S.name.get @ App/Store.swift:2"); return/*trail>*/"#
                    + "\n        // a comment\n        \"store\"/*<trail*/ ~>| Trail.TypedExit<String>()/*trail>*/\n"))
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
