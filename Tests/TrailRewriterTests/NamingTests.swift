import Testing

@testable import TrailDriver
@testable import TrailRewriter

@Suite struct NamingTests {
    @Test func functionsMethodsAndNestedTypes() throws {
        let source = """
            func free(_ a: Int, label b: Int) {}
            struct Outer {
                struct Inner {
                    func method() {}
                    static func make(x: Int) -> Inner { Inner() }
                    mutating func change() {}
                }
                class func klass() {}
            }
            extension Outer.Inner {
                func extended(a: Int, _ b: Int) {}
            }
            extension Array where Element == Int {
                func total() -> Int { reduce(0, +) }
            }
            extension [String] {
                func joinedAll() -> String { joined() }
            }
            enum E { case a; func f() {} }
            actor A { func run() async {} }
            protocol P {}
            extension P { func defaulted() {} }
            """
        #expect(
            try sites(instrumented(source)) == [
                "M.free(_:label:)", "M.Outer.Inner.method()", "M.Outer.Inner.make(x:)", "M.Outer.Inner.change()",
                "M.Outer.klass()", "M.Outer.Inner.extended(a:_:)", "M.Array.total()", "M.Array.joinedAll()",
                "M.E.f()", "M.A.run()", "M.P.defaulted()",
            ])
    }

    @Test func initializersAccessorsSubscriptsOperators() throws {
        let source = """
            struct S {
                var stored = 0 { didSet { } willSet { } }
                var computed: Int { 1 }
                var both: Int {
                    get { stored }
                    set { stored = newValue }
                }
                var coroutine: Int {
                    _read { yield stored }
                    _modify { yield &stored }
                }
                init() {}
                init?(value: Int) { return nil }
                subscript(i: Int) -> Int { i }
                subscript(key k: String, other: Int) -> Int {
                    get { 0 }
                    set { }
                }
                static func + (l: S, r: S) -> S { l }
                static prefix func - (s: S) -> S { s }
            }
            final class C {
                required init(x: Int) {}
                convenience init() { self.init(x: 0) }
                deinit {}
            }
            """
        #expect(
            try sites(instrumented(source)) == [
                "M.S.stored.didSet", "M.S.stored.willSet", "M.S.computed.get", "M.S.both.get", "M.S.both.set",
                "M.S.coroutine.read", "M.S.coroutine.modify", "M.S.init()", "M.S.init(value:)", "M.S.subscript(_:).get",
                "M.S.subscript(key:_:).get", "M.S.subscript(key:_:).set", "M.S.+(_:_:)", "M.S.-(_:)",
                "M.C.init(x:)", "M.C.init()", "M.C.deinit",
            ])
    }

    @Test func nestedFunctionsClosuresAndBackticks() throws {
        let source = """
            struct T {
                func outer() {
                    func inner() {}
                    let a = { () -> Int in 1 }
                    let b = { (x: Int) -> Int in x }
                    _ = [1].map { x in print(x); return x }
                }
                func `default`() {}
            }
            """
        #expect(
            try sites(instrumented(source, closures: true)) == [
                "M.T.outer()", "M.T.outer().inner()", "M.T.outer().closure#1", "M.T.outer().closure#2",
                "M.T.outer().closure#3", "M.T.default()",
            ])
        // A one-statement closure is traced only when its signature writes every type: Swift infers the
        // types of the others from the body, and would stop once statements were added.
        let inferred = try instrumented(
            "let a = { 1 }\nlet b = { (x: Int) in x }\nlet c = [1].map { $0 }\nlet d = { (x) -> Int in x }\n",
            closures: true)
        #expect(!inferred.contains("Trail.enter"))
        // Closures are not traced by default, but still count in nested names.
        #expect(try sites(instrumented(source)) == ["M.T.outer()", "M.T.outer().inner()", "M.T.default()"])
    }

    @Test func siteCarriesFileAndDeclarationLine() throws {
        let source =
            "struct S {\n    @discardableResult\n    func f(\n        a: Int\n    ) -> Int {\n        a\n    }\n}\n"
        let text = try instrumented(source, module: "Mod", path: "/src/Sources/Mod/Thing.swift")
        #expect(text.contains(#"Trail.enter("Mod.S.f(a:) @ Mod/Thing.swift:3")"#))
    }

    @Test func moduleIsInferredFromSourcesLayout() {
        #expect(SourceFiles.inferModule("/x/Sources/MyLib/Sub/File.swift", root: nil) == "MyLib")
        #expect(SourceFiles.inferModule("/x/Tests/MyLibTests/File.swift", root: nil) == "MyLibTests")
        #expect(SourceFiles.inferModule("/x/my-tool/File.swift", root: nil) == "my_tool")
        #expect(SourceFiles.inferModule("/x/Foundation.swiftmodule/x86.swift", root: nil) == "Foundation")
    }
}
