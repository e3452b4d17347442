import Testing
import TrailDriver

@testable import TrailRewriter

/// Syntax the compiler takes only with experimental features: a file of a package that builds must parse.
@Suite struct ExperimentalSyntaxTests {
    private func names(_ source: String, features: [String] = []) throws -> [String] {
        let settings = InstrumentSettings(experimentalFeatures: features)
        guard
            case .changed(let bytes, _) = try settings.instrument(Array(source.utf8), path: "/tmp/F.swift", module: "M")
        else {
            return []
        }
        return sites(String(decoding: bytes, as: UTF8.self))
    }

    @Test func borrowAndMutateAccessorsParseWithoutBeingNamed() throws {
        let source = """
            final class Klass {}
            struct S {
                var _k: Klass
                var k: Klass {
                    borrow { return _k }
                    mutate { return &_k }
                }
            }
            """
        #expect(try names(source) == ["M.S.k.borrow", "M.S.k.mutate"])
        let once = try instrumented(source)
        #expect(try stripped(once) == source)
    }

    @Test func typedThrowsOnDoStaysOrdinarySyntax() throws {
        // DoExpressions would break `do throws(E)`: it is only tried when the file does not parse without it.
        let source = """
            enum E: Error { case bad }
            func g() throws(E) -> Int { 1 }
            func f() throws(E) -> Int {
                do throws(E) { return try g() } catch { throw error }
            }
            """
        #expect(try names(source) == ["M.g()", "M.f()"])
    }

    @Test func otherFeaturesAreTriedWhenTheFileDoesNotParse() throws {
        #expect(try names("func h() -> Int {\n    let x = do { 5 }\n    return x\n}\n") == ["M.h()"])
        // `yield` makes `read` an accessor, not a call in a getter.
        #expect(
            try names("struct R {\n    var _x = 1\n    var x: Int {\n        read { yield _x }\n    }\n}\n") == [
                "M.R.x.read"
            ])
    }

    @Test func namedFeaturesApplyFromTheStart() throws {
        let source = "struct R {\n    var x: Int {\n        read { compute() }\n    }\n}\n"
        #expect(try names(source) == ["M.R.x.get"])
        #expect(try names(source, features: ["CoroutineAccessors"]) == ["M.R.x.read"])
        #expect(Rewriter.isExperimentalFeature("BorrowAndMutateAccessors"))
        #expect(!Rewriter.isExperimentalFeature("NoSuchFeature"))
        let environment = [InstrumentSettings.featuresVariable: "DoExpressions, Bogus"]
        let named = InstrumentSettings.features(named: ["ThenStatements"], environment: environment)
        #expect(named.features == ["ThenStatements", "DoExpressions", "Bogus"])
        #expect(named.unknown == ["Bogus"])
    }
}
