import Foundation
import Testing

@testable import TrailRewriter

/// A body that is one value ends `value ~>| Trail.TypedExit<R>()`, `R` its written result type, so that the value
/// is checked against it as a bare `return` checks it; `Trail.Exit()` where `R` cannot be written there.
@Suite struct ExitTypeTests {
    /// The right operand of each folded exit, in source order.
    private func exitOperands(_ text: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: #" ~>\| (Trail\.[^/]*\(\))/\*trail>\*/"#)
        let range = NSRange(text.startIndex..., in: text)
        return regex.matches(in: text, range: range).map { String(text[Range($0.range(at: 1), in: text)!]) }
    }

    @Test func theExitNamesTheWrittenResultType() throws {
        let source = """
            protocol P {}
            struct S {
                var root: P.Type { tree.element }
                func handler() -> @Sendable (Int) -> Int { { $0 } }
                subscript(i: Int) -> (low: Int, high: Int) { (i, i) }
                var size: Swift.Int { get { 1 } set {} }
                func pair() -> (
                    low: Int,  // the low end
                    high: /* the high end */ Int
                ) { (1, 2) }
                func nested<T>(_ t: T) -> [String: [T]] { [:] }
            }

            """
        let text = try instrumented(source)
        #expect(
            exitOperands(text) == [
                "Trail.TypedExit<P.Type>()", "Trail.TypedExit<@Sendable (Int) -> Int>()",
                "Trail.TypedExit<(low: Int, high: Int)>()", "Trail.TypedExit<Swift.Int>()",
                // On one line, without its comments: no line is added.
                "Trail.TypedExit<( low: Int, high: Int )>()", "Trail.TypedExit<[String: [T]]>()",
            ])
        #expect(lineCount(text) == lineCount(source))
        #expect(try stripped(text) == source)
        #expect(try instrumented(text) == text)
    }

    /// An opaque type and an implicitly unwrapped optional cannot be a generic argument, and an operator's
    /// argument does not convert to `AnyHashable`: the value's own type passes, as a `return` then converts it.
    @Test func theValueKeepsItsOwnTypeWhereTheResultTypeCannotBeNamed() throws {
        let source = """
            func opaque() -> some Equatable { 1 }
            func elements() -> [some Equatable] { [1] }
            func unwrapped() -> Int! { 1 }
            func hashed() -> AnyHashable { 1 }
            func info() -> [Swift.AnyHashable: Any] { [:] }

            """
        let text = try instrumented(source)
        #expect(exitOperands(text) == Array(repeating: "Trail.Exit()", count: 5))
        #expect(try stripped(text) == source)
    }
}
