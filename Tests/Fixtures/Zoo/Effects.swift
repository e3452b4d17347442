#if canImport(Glibc)
import Glibc
#endif

/// throws, typed throws, rethrows, Never, async, and bodies inside #if.
struct ParseError: Error, CustomStringConvertible {
    let input: String
    var description: String { "bad input '\(input)'" }
}

enum Parser {
    static func parse(_ text: String) throws -> Int {
        guard let value = Int(text) else { throw ParseError(input: text) }
        return value
    }

    static func strict(_ text: String) throws(ParseError) -> Int {
        guard let value = Int(text) else { throw ParseError(input: text) }
        return value
    }

    static func strictReport(_ text: String) -> String {
        do {
            return "\(try strict(text))"
        } catch {
            return error.description
        }
    }

    static func apply(_ body: () throws -> Int) rethrows -> Int { try body() }

    static func unreachable() -> Never { fatalError("unreachable") }

    static func checked(_ value: Int) -> Int {
        if value >= 0 { return value }
        unreachable()
    }

    static func failing() -> Int { unreachable() }
}

enum Conditional {
    #if os(Linux)
    static var platform: String { "linux" }
    #else
    static var platform: String { "other" }
    #endif

    static func answer() -> Int {
        #if DEBUG
        42
        #else
        42
        #endif
    }
}

enum Async {
    static func fetch(_ count: Int) async -> Int {
        var total = 0
        for index in 0 ..< count {
            total += await step(index)
        }
        return total
    }

    static func step(_ index: Int) async -> Int {
        await Task.yield()
        return square(index)
    }

    nonisolated static func square(_ value: Int) -> Int { value * value }
}

extension Conditional {
    /// Empty unless NEVER is set: the inserted `defer` must not end the body, which would draw a warning
    /// (the zoo compiles with warnings as errors).
    static func note() {
        #if NEVER
        print("never")
        #endif
    }
}
