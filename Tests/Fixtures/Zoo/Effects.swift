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

/// Throwing bodies of every kind with statements of their own, which a build with values wraps in `do`/`catch` to
/// record the error (ThrownErrors): the `catch` must compile and rethrow what each threw, unchanged.
enum Throwing {
    static func relay(_ body: () throws -> Int) rethrows -> Int {
        let value = try body()
        return value + 1
    }

    /// Rethrows from a `catch` of its own, as swift-distributed-tracing's `withSpan` does: no `catch` is added.
    static func relayNoting(_ body: () throws -> Int) rethrows -> Int {
        do {
            return try body()
        } catch {
            print("relay noted", error)
            throw error
        }
    }

    /// A `try` in an autoclosure of a function that does not throw, as XCTest's assertions take one: no error
    /// leaves the body, so no `catch` is added.
    static func asserted(_ text: String) throws -> Bool {
        let equal = matches(try Parser.parse(text), 7)
        return equal
    }

    static func matches(_ value: @autoclosure () throws -> Int, _ expected: Int) -> Bool {
        (try? value()) == expected
    }

    static func typed<Failure: Error>(_ body: () throws(Failure) -> Int) throws(Failure) -> Int {
        let value = try body()
        return value * 2
    }

    static func existential(_ text: String) throws(any Error) -> Int {
        let value = try Parser.parse(text)
        return value
    }

    static func covered(_ text: String) throws -> Int {
        do { return try Parser.parse(text) } catch let error { _ = error }
        return (try? Parser.parse(text)) ?? 0
    }

    static func tested(_ text: String) throws -> Int {
        do {
            return try Parser.strict(text)
        } catch where text.isEmpty {
            return 0
        }
    }

    final class Node {
        let value: Int
        init(value: Int) throws {
            self.value = try Parser.parse("\(value)")
        }
        convenience init(text: String) throws {
            let value = try Parser.parse(text)
            try self.init(value: value)
        }
    }

    struct Box {
        let items: [Int]
        init?(items: [Int]) throws {
            if items.isEmpty { return nil }
            guard items.allSatisfy({ $0 >= 0 }) else { throw ParseError(input: "\(items)") }
            self.items = items
        }
        subscript(index: Int) -> Int {
            get throws {
                guard items.indices.contains(index) else { throw ParseError(input: "\(index)") }
                return items[index]
            }
        }
    }

    static func report() -> String {
        let relayed = relay { 1 }
        let noted = (try? relayNoting { throw ParseError(input: "n") }) ?? relayNoting { 2 }
        let equal = (try? asserted("7")) ?? false
        let typed = (try? typed { () throws(ParseError) -> Int in throw ParseError(input: "t") }) ?? -1
        let parsed = (try? existential("7")) ?? -1
        let node = (try? Node(text: "x"))?.value ?? -1
        let box = try? Box(items: [3, 4])
        let item = (try? box?[1]) ?? -1
        let missing = (try? box?[5]) ?? -1
        let empty = (try? Box(items: [])) == nil ? "nil" : "box"
        return "\(relayed) \(typed) \(parsed) \(node) \(item) \(missing) \(empty) \((try? covered("x")) ?? -1) "
            + "\((try? tested("")) ?? -1) \(noted) \(equal)"
    }
}

extension Throwing {
    /// Calls what throws of itself from a `catch` of its own, as swift-nio's datagram writes do: the compiler
    /// allows it only there, so no `catch` is added.
    static func relayRecovering(_ body: () throws -> Int) rethrows -> Int {
        do {
            return try body()
        } catch {
            return try recover(error)
        }
    }

    /// An async sequence's rethrowing algorithm in an `async rethrows` body: no `catch` is added, on which Swift 6.3
    /// crashes (swift-nio's tests).
    static func counted<S: AsyncSequence>(_ elements: S) async rethrows -> Int {
        let total = try await elements.reduce(0) { sum, _ in sum + 1 }
        return total
    }

    static func recover(_ error: any Error) throws -> Int {
        if error is ParseError { return -1 }
        throw error
    }
}
