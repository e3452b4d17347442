import Testing
import TrailDriver

@testable import TrailRewriter

/// Bodies a result builder transforms without an attribute on them: builders inherited from a protocol of
/// another module are recognized by shape, those of this module's protocols by the declaration list.
@Suite struct BuilderBodyTests {
    /// The names instrumented in `source`.
    private func traced(_ source: String, closures: Bool = false) throws -> Set<String> {
        Set(sites(try instrumented(source, closures: closures)))
    }

    @Test func r0OpaqueResultFromMoreThanOneExpression() throws {
        let names = try traced(
            """
            var two: some View { let x = 1; Text("\\(x)") }
            var conditional: some View {
                #if os(Linux)
                Text("a")
                #else
                Text("b"); Text("c")
                #endif
            }
            var empty: some View {}
            var one: some View { Text("a") }
            var ifExpression: some View { if flag { Text("a") } else { Text("b") } }
            var each: some View {
                #if DEBUG
                Text("a")
                #else
                Text("b")
                #endif
            }
            var never: some View { fatalError() }
            """)
        #expect(names == ["M.one.get", "M.ifExpression.get", "M.each.get", "M.never.get"])
    }

    @Test func r1ValueOrDeclarationAfterOtherStatements() throws {
        let names = try traced(
            """
            var identifier: Body { let x = 1; x }
            var literal: Body { header(); "a" }
            var member: Body { header(); x.y }
            var operators: Body { header(); a + b }
            var component: Body { header(); Text("a") }
            var modified: Body { header(); Text("a").bold() }
            var qualified: Body { header(); SwiftUI.Text("a") }
            var declaration: Body { Text("a"); let y = 2 }
            func mayNotReturn() -> Int { log(); fail() }
            func method() -> Int { log(); x.fail() }
            func knownNever() -> Int { log(); fatalError() }
            func throwing() throws -> Int { log(); throw E() }
            """)
        #expect(names == ["M.mayNotReturn()", "M.method()", "M.knownNever()", "M.throwing()"])
    }

    @Test func r2ToR5StatementsThatEndWithoutAValue() throws {
        let names = try traced(
            """
            var ifWithoutElse: Body { if flag { Text("a") } }
            var loop: Body { for i in items { Text("\\(i)") } }
            var whileLoop: Body { while flag { Text("a") } }
            var repeatLoop: Body { repeat { Text("a") } while flag }
            var guarded: Body { guard flag else { fatalError() } }
            var deferred: Body { defer { log() } }
            var doBlock: Body { do { Text("a") } }
            func forever() -> Int { while true { step() } }
            func repeatForever() -> Int { repeat { step() } while true }
            func doThatFails() -> Int { do { try step() } catch { fatalError() } }
            """)
        #expect(names == ["M.forever()", "M.repeatForever()", "M.doThatFails()"])
    }

    @Test func r6BranchesThatFallThrough() throws {
        let names = try traced(
            """
            var ifElse: Body { if flag { let x = 1; Text("\\(x)") } else { Text("b") } }
            var switched: Body {
                switch kind {
                case 0: let a = 1; Text("\\(a)")
                default: Text("b")
                }
            }
            func ifExpression(_ c: Bool) -> Int { if c { 1 } else { 2 } }
            func switchExpression(_ k: Int) -> Int {
                switch k {
                case 0: 1
                default: 2
                }
            }
            func allBranchesEnd(_ c: Bool) throws -> Int { if c { log(); fail() } else { throw E() } }
            func casesEnd(_ k: Int) throws -> Int {
                switch k {
                case 0: log(); fatalError()
                default: throw E()
                }
            }
            """)
        #expect(names == ["M.ifExpression(_:)", "M.switchExpression(_:)", "M.allBranchesEnd(_:)", "M.casesEnd(_:)"])
    }

    @Test func anyBuildConfigurationIsEnough() throws {
        let names = try traced(
            """
            var oneClause: Body {
                #if DEBUG
                1
                #else
                let x = 1
                x
                #endif
            }
            var everyClauseAValue: Int {
                #if DEBUG
                1
                #elseif os(Linux)
                2
                #else
                3
                #endif
            }
            """)
        #expect(names == ["M.everyClauseAValue.get"])
    }

    @Test func bodiesThatCompileWithoutABuilderAreTraced() throws {
        let names = try traced(
            """
            func returns() -> Int { let x = 1; return x }
            func void() { for x in items { use(x) } }
            func voidWritten() -> Void { if flag { use(1) } }
            func never() -> Never { while flag { step() }; fatalError() }
            var nestedReturn: Int { let f = { return 1 }; return f() }
            func initializer() -> Self { Self(x: 1) }
            """)
        #expect(
            names == [
                "M.returns()", "M.void()", "M.voidWritten()", "M.never()", "M.nestedReturn.get", "M.initializer()",
            ])
        // A `return` nested in a closure does not turn the body's builder off.
        #expect(try traced("var b: Body { let f = { return 1 }; Text(\"\\(f())\") }\n").isEmpty)
    }

    @Test func closuresWithoutATypeEndingInAComponentAreSkipped() throws {
        let names = try traced(
            """
            func host() {
                stack { header(); Text("a") }
                apply { a(); x = 1 }
                apply { a(); b() }
                apply { () -> Body in header(); if flag { Text("a") } }
            }
            """, closures: true)
        #expect(names == ["M.host()", "M.host().closure#2", "M.host().closure#3"])
    }

    @Test func witnessesOfBuilderRequirementsInTheConformingDeclaration() throws {
        let source = """
            protocol Screen { @ScreenBuilder var body: Body { get } }
            protocol Page: Screen {}
            protocol Table { @Rows func rows() -> Body; @Rows subscript(i: Int) -> Body { get } }
            struct A: Screen { var body: Body { Text("a") } }
            struct B: Page, Equatable { var body: Body { Text("b") } }
            struct C: Screen & Equatable { var body: Body { get { Text("c") } } }
            struct D { var body: Body { Text("d") } }
            extension D: Screen {}
            extension E: Table {
                func rows() -> Body { Text("r") }
                subscript(i: Int) -> Body { Text("i") }
                func other() -> Body { Text("o") }
            }
            struct F: Screen { var body: Body { return Text("f") } }
            """
        let declarations = Declarations(scanning: Array(source.utf8))
        #expect(declarations.requirements.contains(.init(protocolName: "Table", name: "rows", attribute: "Rows")))
        #expect(declarations.refinements["Page"] == ["Screen"])
        // `Rows` is a builder only once it is known to be one: here, declared in another file.
        let settings = InstrumentSettings(declared: [Declarations(resultBuilders: ["Rows"])])
        guard
            case .changed(let bytes, _) = try settings.instrument(Array(source.utf8), path: "/tmp/F.swift", module: "M")
        else {
            Issue.record("unchanged")
            return
        }
        #expect(Set(sites(String(decoding: bytes, as: UTF8.self))) == ["M.D.body.get", "M.E.other()", "M.F.body.get"])
    }

    @Test func declarationListKeepsBuilderRequirementsAndTheirRefinements() throws {
        let source = """
            protocol Screen { @ScreenBuilder var body: Body { get }; @MainActor func load() }
            protocol Page: Screen, Sendable {}
            protocol Unrelated: Equatable { func f() }
            """
        let list = Declarations(scanning: Array(source.utf8)).text
        #expect(list.hasSuffix("\n// requirement Screen body ScreenBuilder\n// refines Page Screen\n"))
        let read = try Declarations(text: list, path: "d.swift")
        #expect(read.builderRequirements(of: ["Page"]) == ["body"])
        // Lines of kinds a reader does not know are skipped.
        #expect(try Declarations(text: "// future kind a b c d e\n", path: "d.swift") == Declarations())
    }
}
