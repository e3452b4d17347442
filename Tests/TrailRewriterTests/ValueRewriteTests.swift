import Foundation
import Testing
import TrailDriver

@testable import TrailRewriter

/// What `--values` inserts (issue 41): the arguments after the entry, inside the branch taken only when the call
/// records values, and the result with a one-value body's exit.
@Suite struct ValueRewriteTests {
    func withValues(_ source: String, lineDirectiveFile: String? = nil) throws -> String {
        var settings = InstrumentSettings()
        settings.values = true
        switch try settings.instrument(
            Array(source.utf8), path: "/tmp/F.swift", module: "M", lineDirectiveFile: lineDirectiveFile)
        {
        case .changed(let bytes, _): return String(decoding: bytes, as: UTF8.self)
        case .unchanged: return source
        case .skipped(let reason): return "skipped: \(reason)"
        }
    }

    @Test func argumentsAndResultsExactText() throws {
        let source = """
            func fib(n: Int) -> Int { n < 2 ? n : fib(n: n - 1) + fib(n: n - 2) }
            func load(from path: String, _ count: inout Int, _: Bool) throws -> [UInt8] {
                return []
            }
            func tick() -> Bool { true }
            struct S {
                init(name: String?) {}
                subscript(index: Int) -> Int { index }
            }

            """
        let expected = """
            func fib(n: Int) -> Int {/*<trail*/if Trail.tracing, Trail.enterWithValues("M.fib(n:) @ M/F.swift:1", 1) { Trail.value("n: Int", n) };/*trail>*/ /*<trail*/return /*trail>*/n < 2 ? n : fib(n: n - 1) + fib(n: n - 2)/*<trail*/ ~>| Trail.TypedValueExit<Int>("-> Int")/*trail>*/ }/*<trail*/; import enum Trail.Trail; import TrailExit/*trail>*/
            func load(from path: String, _ count: inout Int, _: Bool) throws -> [UInt8] {/*<trail*/if Trail.tracing, Trail.enterWithValues("M.load(from:_:_:) @ M/F.swift:2", 3) { Trail.value("from path: String", path); Trail.value("_ count: Int", count); Trail.unread("_: Bool") }; defer { Trail.exit() };/*trail>*/
                return []/*<trail*/ ~>> Trail.TypedResult<[UInt8]>("-> [UInt8]")/*trail>*/
            }
            func tick() -> Bool {/*<trail*/Trail.enterValues("M.tick() @ M/F.swift:5");/*trail>*/ /*<trail*/return /*trail>*/true/*<trail*/ ~>| Trail.TypedValueExit<Bool>("-> Bool")/*trail>*/ }
            struct S {
                init(name: String?) {/*<trail*/if Trail.tracing, Trail.enterWithValues("M.S.init(name:) @ M/F.swift:7", 1) { Trail.value("name: String?", name) }; Trail.exit();/*trail>*/}
                subscript(index: Int) -> Int {/*<trail*/if Trail.tracing, Trail.enterWithValues("M.S.subscript(_:).get @ M/F.swift:8", 1) { Trail.value("_ index: Int", index) };/*trail>*/ /*<trail*/return /*trail>*/index/*<trail*/ ~>| Trail.TypedValueExit<Int>("-> Int")/*trail>*/ }
            }

            """
        let result = try withValues(source)
        #expect(result == expected)
        #expect(try stripped(result) == source)
    }

    /// A throwing body that keeps its `defer` and throws of its own catches and rethrows, so the exit shows the
    /// error: `do throws(E)` for typed throws; nothing where no error can leave through its own statements.
    @Test func thrownErrorsAreCaughtAndRethrown() throws {
        let source = """
            func load(_ path: String) throws -> Int {
                guard !path.isEmpty else { throw LoadError.empty }
                return try parse(path)
            }
            func strict() throws(LoadError) { try check() }
            func never() throws(Never) { try check() }
            func covered() throws {
                _ = try? check()
                do { try check() } catch let error { print(error) }
                do { try check() } catch {}
                let run = { try check() }
                _ = run
            }
            func partly() throws {
                do { try check() } catch is LoadError { print(1) }
            }
            struct S {
                init() throws { try check() }
                var value: Int { get throws { try check(); return 1 } }
            }

            """
        let expected = """
            func load(_ path: String) throws -> Int {/*<trail*/if Trail.tracing, Trail.enterWithValues("M.load(_:) @ M/F.swift:1", 1) { Trail.value("_ path: String", path) }; defer { Trail.exit() }; do { try Trail.mayThrow();/*trail>*/
                guard !path.isEmpty else { throw LoadError.empty }
                return try parse(path)/*<trail*/ ~>> Trail.TypedResult<Int>("-> Int")/*trail>*/
            /*<trail*/} catch { Trail.threw(error); throw error }/*trail>*/}/*<trail*/; import enum Trail.Trail; import TrailExit/*trail>*/
            func strict() throws(LoadError) {/*<trail*/Trail.enterValues("M.strict() @ M/F.swift:5"); defer { Trail.exit() }; do throws(LoadError) { try Trail.mayThrow((LoadError).self);/*trail>*/ try check() /*<trail*/} catch { Trail.threw(error); throw error }/*trail>*/}
            func never() throws(Never) {/*<trail*/Trail.enter("M.never() @ M/F.swift:6"); defer { Trail.exit() };/*trail>*/ try check() }
            func covered() throws {/*<trail*/Trail.enter("M.covered() @ M/F.swift:7"); defer { Trail.exit() };/*trail>*/
                _ = try? check()
                do { try check() } catch let error { print(error) }
                do { try check() } catch {}
                let run = { try check() }
                _ = run
            }
            func partly() throws {/*<trail*/Trail.enterValues("M.partly() @ M/F.swift:14"); defer { Trail.exit() }; do { try Trail.mayThrow();/*trail>*/
                do { try check() } catch is LoadError { print(1) }
            /*<trail*/} catch { Trail.threw(error); throw error }/*trail>*/}
            struct S {
                init() throws {/*<trail*/Trail.enterValues("M.S.init() @ M/F.swift:18"); defer { Trail.exit() }; do { try Trail.mayThrow();/*trail>*/ try check() /*<trail*/} catch { Trail.threw(error); throw error }/*trail>*/}
                var value: Int { get throws {/*<trail*/Trail.enterValues("M.S.value.get @ M/F.swift:19"); defer { Trail.exit() }; do { try Trail.mayThrow();/*trail>*/ try check(); return 1/*<trail*/ ~>> Trail.TypedResult<Int>("-> Int")/*trail>*/ /*<trail*/} catch { Trail.threw(error); throw error }/*trail>*/} }
            }

            """
        let result = try withValues(source)
        #expect(result == expected)
        #expect(try stripped(result) == source)
    }

    /// A `rethrows` body that rethrows from a `catch` of its own (swift-distributed-tracing's `withSpan`), or calls
    /// what throws there: the compiler would take an added `catch`'s `throw` for one the parameters do not cause,
    /// so none is added. One whose own statements only `try` still gets it.
    @Test func rethrowsBodyWithAThrowOfItsOwnIsNotCaught() throws {
        let source = """
            func withSpan<T>(_ operation: () throws -> T) rethrows -> T {
                do {
                    return try operation()
                } catch {
                    throw error
                }
            }
            func relay<T>(_ operation: () throws -> T) rethrows -> T {
                let value = try operation()
                return value
            }
            func count<S: AsyncSequence>(_ s: S) async rethrows -> Int {
                let total = try await s.reduce(0) { sum, _ in sum + 1 }
                return total
            }
            func write(_ operation: () throws -> Int) rethrows -> Int {
                do {
                    return try operation()
                } catch {
                    return try recover(error)
                }
            }

            """
        let result = try withValues(source)
        #expect(result.contains(#"Trail.unread("_ operation: () throws -> T") }; defer { Trail.exit() };/*trail>*/"#))
        // An async one: Swift 6.3 crashes on the `throw` when the `do` calls an async sequence's `reduce`.
        #expect(
            result.contains(
                #"Trail.enterAsync("M.count(_:) @ M/F.swift:12", values: 1); if __trail.recordsValues { Trail.value("_ s: S", s) }; defer { Trail.exit(__trail) };/*trail>*/"#
            ))
        // A `try` in a `catch` of its own (swift-nio's datagram writes) is one the compiler lets through only there.
        #expect(result.contains(#"Trail.unread("_ operation: () throws -> Int") }; defer { Trail.exit() };/*trail>*/"#))
        #expect(
            result.contains(
                #"M.relay(_:) @ M/F.swift:8", 1) { Trail.unread("_ operation: () throws -> T") }; defer { Trail.exit() }; do {/*trail>*/"#
            ))
        #expect(try stripped(result) == source)
    }

    /// A `try` in the arguments of a call no `try` covers may be in an `@autoclosure` of a function that does not
    /// throw (XCTest's assertions), so no error of it leaves the body, and a `catch` no error reaches is a warning
    /// that stops a build with warnings as errors: `try Trail.mayThrow()` keeps it reachable, so that such a body
    /// (`items.remove(at: try position(of: serial))`) still shows its error.
    @Test func tryInACallsArgumentsKeepsTheCatchReachable() throws {
        let source = """
            func testLoad() throws {
                XCTAssertEqual(try load(), 1)
                items[try index()] = 2
            }
            func relay(_ body: () throws -> Int) rethrows -> Int {
                let value = check(try body())
                return value
            }

            """
        let result = try withValues(source)
        #expect(
            result.contains(
                #"testLoad() @ M/F.swift:1"); defer { Trail.exit() }; do { try Trail.mayThrow();/*trail>*/"#))
        // A rethrows body may not call what throws of itself: no mayThrow, and only its own `try`s count.
        #expect(result.contains(#"Trail.unread("_ body: () throws -> Int") }; defer { Trail.exit() };/*trail>*/"#))
        #expect(try stripped(result) == source)
    }

    /// Closures, autoclosures, parameter packs and unnamed parameters are not passed, nor is a result type the exit
    /// cannot name.
    @Test func whatIsLeftOut() throws {
        let source = """
            func f(_ body: () -> Int, _ lazy: @autoclosure () -> Int, _ x: Int) {
                _ = x
            }
            func g<each T>(_ values: repeat each T) {
                _ = 1
            }
            func h(n: Int) async -> Int {
                n
            }
            func o(n: Int) -> some Equatable { n }

            """
        let result = try withValues(source)
        #expect(
            result.contains(
                #"if Trail.tracing, Trail.enterWithValues("M.f(_:_:_:) @ M/F.swift:1", 3) { Trail.unread("_ body: () -> Int"); "#
                    + #"Trail.unread("_ lazy: () -> Int"); Trail.value("_ x: Int", x) }"#))
        #expect(result.contains(#"{ Trail.unread("_ values: repeat each T") }"#))
        #expect(result.contains(#"let __trail = Trail.enterAsync("M.h(n:) @ M/F.swift:7", values: 1)"#))
        #expect(
            result.contains(
                #"if Trail.tracing, Trail.enterWithValues("M.o(n:) @ M/F.swift:10", 1) { Trail.value("n: Int", n) };"#))
        #expect(result.contains(#"n/*<trail*/ ~>| Trail.Exit()/*trail>*/ }"#))
    }

    /// A parameter whose type is an alias of a function type (declared in the module; the scan finds it) is a
    /// non-escaping closure as much as `() -> Int` is: recorded by its type, never passed (swift-argument-parser's
    /// `_ update: ArgumentDefinition.Update.Unary` did not compile). Not an optional of one, nor `@escaping`.
    @Test func functionTypeAliasesAreNotPassed() throws {
        let source = """
            enum Update { typealias Unary = @Sendable (String, inout [Int]) throws(E) -> Void }
            typealias Pick<T> = (T) async -> T
            typealias Maybe = ((Int) -> Void)?
            typealias Pair = (Int, Int)
            typealias Wrapped = ((Int) throws -> Void)
            typealias Both = ((Int) -> Void, Int)
            func apply(_ u: Update.Unary, _ p: Pick<Int>, _ m: Maybe, _ t: Pair, _ e: @escaping Pick<Int>) -> Int { 1 }

            """
        #expect(
            Declarations(scanning: Array(source.utf8)).functionTypeAliases == ["Unary", "Pick", "Wrapped"])
        let result = try withValues(source)
        #expect(
            result.contains(
                #"{ Trail.unread("_ u: Update.Unary"); Trail.unread("_ p: Pick<Int>"); Trail.value("_ m: Maybe", m); "#
                    + #"Trail.value("_ t: Pair", t); Trail.value("_ e: Pick<Int>", e) }"#), "\(result)")
    }

    /// The toolchain's aliases of function types, which no scan of the package finds: `UnboundedRange` (swift-nio's
    /// `readChunks(in: UnboundedRange)`) is a non-escaping closure.
    @Test func toolchainFunctionAliasesAreNotPassed() throws {
        let source = """
            func chunks(in range: UnboundedRange, from start: Swift.UnboundedRange, count: Int) -> Int { count }

            """
        let result = try withValues(source)
        #expect(
            result.contains(
                #"{ Trail.unread("in range: UnboundedRange"); Trail.unread("from start: Swift.UnboundedRange"); "#
                    + #"Trail.value("count: Int", count) }"#), "\(result)")
    }

    /// An async body has no frame on the thread's stack: its span says whether it records values, and its results
    /// and errors name it. One without arguments still records its result; one with neither is unchanged.
    @Test func asyncBodiesNameTheirSpan() throws {
        let source = """
            func load(path: String, token: String) async throws -> String {
                try await Task.sleep(nanoseconds: 1)
                return path
            }
            func total() async -> Int {
                await Task.yield()
                return 3
            }
            func wait(for seconds: Double) async {}
            func idle() async {
                await Task.yield()
            }

            """
        let result = try withValues(source)
        #expect(
            result.contains(
                #"let __trail = Trail.enterAsync("M.load(path:token:) @ M/F.swift:1", values: 2); "#
                    + #"if __trail.recordsValues { Trail.value("path: String", path); "#
                    + #"Trail.redacted("token: String") }; defer { Trail.exit(__trail) }; do { try Trail.mayThrow();"#))
        #expect(
            result.contains(#"return path/*<trail*/ ~>> Trail.TypedResult<String>("-> String", __trail)/*trail>*/"#))
        #expect(result.contains(#"} catch { Trail.threw(error, __trail); throw error }"#))
        #expect(
            result.contains(
                #"let __trail = Trail.enterAsync("M.total() @ M/F.swift:5", values: 0); defer { Trail.exit(__trail) };"#
            ))
        #expect(result.contains(#"return 3/*<trail*/ ~>> Trail.TypedResult<Int>("-> Int", __trail)/*trail>*/"#))
        #expect(
            result.contains(
                #"{/*<trail*/let __trail = Trail.enterAsync("M.wait(for:) @ M/F.swift:9", values: 1); "#
                    + #"if __trail.recordsValues { Trail.value("for seconds: Double", seconds) }; Trail.exit(__trail);"#
            ))
        #expect(
            result.contains(
                #"let __trail = Trail.enterAsync("M.idle() @ M/F.swift:10"); defer { Trail.exit(__trail) };"#))
        #expect(try stripped(result) == source)
    }

    /// A body that keeps its `defer` records what each of its own `return`s returns (`~>>`), not what a closure in
    /// it returns.
    @Test func resultsOfBodiesWithADefer() throws {
        let source = """
            func name(of id: Int) throws -> String {
                if id == 0 { return "zero" }
                let doubled = [id].map { x in return x * 2 }
                return try label(doubled[0])
            }
            func choose(_ flag: Bool) -> Int {
                _ = 0
                return if flag { 1 } else { 2 }
            }

            """
        let result = try withValues(source)
        #expect(
            result.contains(
                #"if id == 0 { return "zero"/*<trail*/ ~>> Trail.TypedResult<String>("-> String")/*trail>*/ }"#))
        #expect(result.contains("{ x in return x * 2 }\n"))
        #expect(
            result.contains(
                #"return try label(doubled[0])/*<trail*/ ~>> Trail.TypedResult<String>("-> String")/*trail>*/"#))
        #expect(
            result.contains(
                #"return if flag { 1/*<trail*/ ~>> Trail.TypedResult<Int>("-> Int")/*trail>*/ } else { 2/*<trail*/ ~>> "#
            ))
        #expect(try stripped(result) == source)
    }

    /// An `if` or `switch` expression is not an operand: each branch's value takes the operator, nested ones too,
    /// under a `try` that covers the whole; not a `throw`, nor a call to a `Never` function.
    @Test func resultsOfIfAndSwitchExpressions() throws {
        let source = """
            func grade(_ n: Int) throws -> String {
                switch n {
                case 0: "zero"
                case 1 ... 9: if n > 4 { "high" } else { "low" }
                case 100: fatalError("never")
                case -1: throw Bad()
                default: "many"
                }
            }
            func pick(_ f: Bool) throws -> Int {
                _ = 0
                return try if f { check() } else { 2 }
            }

            """
        let result = try withValues(source)
        let typed = #"/*<trail*/ ~>> Trail.TypedResult<String>("-> String")/*trail>*/"#
        #expect(result.contains(#"case 0: "zero""# + typed + "\n"))
        #expect(result.contains(#"case 1 ... 9: if n > 4 { "high""# + typed + #" } else { "low""# + typed + " }\n"))
        #expect(result.contains(#"case 100: fatalError("never")"# + "\n"))
        #expect(result.contains("case -1: throw Bad()\n"))
        #expect(result.contains(#"default: "many""# + typed + "\n"))
        #expect(
            result.contains(
                #"return try if f { check()/*<trail*/ ~>> Trail.TypedResult<Int>("-> Int")/*trail>*/ } else { 2"#))
        #expect(try stripped(result) == source)
    }

    /// Every accessor of a subscript records the subscript's arguments, labelled as a call writes them:
    /// `grid[2, column: 3]` shows as `Grid.subscript(2, column: 3).get`.
    @Test func subscriptAccessorsSeeTheirParameters() throws {
        let source = """
            struct Grid {
                subscript(row: Int, column column: Int) -> Int {
                    get { row * column }
                    set { _ = newValue }
                    _modify { var cell = 0; yield &cell }
                }
            }

            """
        let result = try withValues(source)
        let arguments = #"{ Trail.value("_ row: Int", row); Trail.value("column: Int", column) }"#
        for accessor in ["get", "set", "modify"] {
            #expect(
                result.contains(#"Trail.enterWithValues("M.Grid.subscript(_:column:).\#(accessor) @ M/F.swift:"#),
                "\(result)")
        }
        // The getter and `_modify` record the arguments alone; the setter the value given after them.
        #expect(result.components(separatedBy: arguments).count == 3, "\(result)")
        #expect(
            result.contains(
                #"{ Trail.value("_ row: Int", row); Trail.value("column: Int", column); Trail.value("newValue: Int", newValue) }"#
            ))
        #expect(try stripped(result) == source)
    }

    /// An argument named like a secret is never passed: the build records it as `<redacted>`.
    @Test func secretsAreNotPassed() throws {
        let result = try withValues("func login(user: String, password: String, apiKey k: String) {\n    _ = 1\n}\n")
        #expect(
            result.contains(
                #"{ Trail.value("user: String", user); Trail.redacted("password: String"); Trail.redacted("apiKey k: String") }"#
            ))
    }

    /// `-strict-memory-safety` rejects a use of an unsafe type not marked `unsafe`, and every mode warns of an
    /// `unsafe` that covers none: an argument whose type names one is read as `unsafe Trail.value`, and a result
    /// of one that the body does not mark is marked where it meets the exit operator.
    @Test func unsafeTypesAreMarkedWhereTheyAreRead() throws {
        let source = """
            @unsafe func flagged() {}
            struct Plain {}
            @unsafe public final class Cursor {}
            @unsafe typealias Bytes = UnsafeRawBufferPointer
            typealias Element = OpaquePointer
            func read(
                _ p: UnsafePointer<Int>, _ b: Bytes, _ c: Cursor?, _ s: Plain, _ ps: [UnsafeRawPointer],
                _ q: some Sequence<UnsafeRawPointer>
            ) -> Int {
                0
            }
            func none() -> OpaquePointer? { nil }
            func same(_ p: OpaquePointer?) -> OpaquePointer? { unsafe p }
            func either(_ p: OpaquePointer?) throws -> OpaquePointer? {
                if p == nil { return nil }
                return unsafe p
            }

            """
        let declarations = Declarations(scanning: Array(source.utf8))
        // Not `Element`: an alias may be nested, and its name a generic parameter elsewhere.
        #expect(declarations.unsafeTypes == ["Cursor", "Bytes"])
        let result = try withValues(source)
        for argument in [
            #"unsafe Trail.pointer("_ p: UnsafePointer<Int>", p)"#, #"unsafe Trail.value("_ b: Bytes", b)"#,
            #"unsafe Trail.value("_ c: Cursor?", c)"#, #"; Trail.value("_ s: Plain", s)"#,
            #"unsafe Trail.value("_ ps: [UnsafeRawPointer]", ps)"#,
            // An opaque type's constraint does not make the value unsafe.
            #"; Trail.value("_ q: some Sequence<UnsafeRawPointer>", q)"#,
        ] { #expect(result.contains(argument), "\(argument)\n\(result)") }
        // `nil` is not marked: the rewriter marks it, after the `return` it inserts.
        #expect(
            result.contains(
                #"/*<trail*/return /*trail>*//*<trail*/unsafe /*trail>*/nil/*<trail*/ ~>| Trail.TypedValueExit<OpaquePointer?>"#
            ))
        #expect(
            result.contains(#"/*<trail*/return /*trail>*/unsafe p/*<trail*/ ~>| Trail.TypedValueExit<OpaquePointer?>"#))
        #expect(
            result.contains(#"return /*<trail*/unsafe /*trail>*/nil/*<trail*/ ~>> Trail.TypedResult<OpaquePointer?>"#))
        #expect(result.contains(#"return unsafe p/*<trail*/ ~>> Trail.TypedResult<OpaquePointer?>"#))
        #expect(try stripped(result) == source)
    }

    /// A setter and `willSet` record the value given, under the name the body knows it by, after a subscript's
    /// arguments; a property named like a secret has it redacted. Not `didSet` (naming `oldValue` would make Swift
    /// read it first), nor a property without a written type.
    @Test func settersRecordTheValueGiven() throws {
        let source = """
            struct Grid {
                var cells: [Int] = []
                subscript(row: Int) -> Int {
                    get { cells[row] }
                    set { cells[row] = newValue }
                }
                var first: Int {
                    get { cells[0] }
                    set(cell) { cells[0] = cell }
                }
                var label: String = "" {
                    willSet { _ = newValue }
                    didSet { _ = 1 }
                }
                var apiToken: String {
                    get { "" }
                    set { _ = newValue }
                }
                var untyped = 0 {
                    willSet { _ = 1 }
                }
            }

            """
        let result = try withValues(source)
        let given = [
            #"("M.Grid.subscript(_:).set @ M/F.swift:5", 2) { Trail.value("_ row: Int", row); Trail.value("newValue: Int", newValue) }"#,
            #"("M.Grid.first.set @ M/F.swift:9", 1) { Trail.value("cell: Int", cell) }"#,
            #"("M.Grid.label.willSet @ M/F.swift:12", 1) { Trail.value("newValue: String", newValue) }"#,
            #"("M.Grid.apiToken.set @ M/F.swift:17", 1) { Trail.redacted("newValue: String") }"#,
        ]
        for text in given { #expect(result.contains(text), "\(text)\n\(result)") }
        #expect(result.contains(#"Trail.enter("M.Grid.label.didSet @ M/F.swift:13"); defer { Trail.exit() };"#))
        #expect(result.contains(#"Trail.enter("M.Grid.untyped.willSet @ M/F.swift:20"); defer { Trail.exit() };"#))
        #expect(try stripped(result) == source)
    }

    /// A function or property named like a secret records its result as `<redacted>`, never passing it: a one-value
    /// body through `RedactedValueExit`, a body with a `defer` through `RedactedResult`.
    @Test func resultsOfSecretNamesAreNotPassed() throws {
        let source = """
            func apiToken() -> String { "t" }
            func loadSecret(_ n: Int) throws -> String {
                return "s"
            }
            var sessionKey: String { "k" }
            func count() -> Int { 1 }

            """
        let result = try withValues(source)
        #expect(
            result.contains(
                #"/*<trail*/return /*trail>*/"t"/*<trail*/ ~>| Trail.RedactedValueExit<String>("-> String")"#))
        #expect(result.contains(#"return "s"/*<trail*/ ~>> Trail.RedactedResult<String>("-> String")"#))
        #expect(
            result.contains(
                #"/*<trail*/return /*trail>*/"k"/*<trail*/ ~>| Trail.RedactedValueExit<String>("-> String")"#))
        #expect(result.contains(#"1/*<trail*/ ~>| Trail.TypedValueExit<Int>("-> Int")"#))
        #expect(try stripped(result) == source)
    }

    /// Without `values`, nothing of this is inserted: the output is today's.
    @Test func offByDefault() throws {
        let result = try instrumented("func fib(n: Int) -> Int { n }\n")
        #expect(!result.contains("Value") && !result.contains("value("))
        #expect(result.contains(#"Trail.enter("M.fib(n:) @ M/F.swift:1");"#))
    }
}
