// Bodies that are one value: their exit follows the value (`return value ~>| Trail.Exit()`), which must
// type-check as the bare value did, whatever its type and however it is written.
struct Token: ~Copyable {
    var id: Int
}

enum Direction { case north, south }

struct Values {
    var bytes: [UInt8] = [1, 2, 3]

    var count: Int { bytes.count }  // a trailing comment stays after the value
    subscript(index: Int) -> UInt8 { bytes[index] }
    var span: Span<UInt8> { bytes.span }
    var size: Int {
        get { span.count }
        set { bytes = Array(repeating: 0, count: newValue) }
    }

    func literal() -> Double { 1 }
    func member() -> Direction { .south }
    func none() -> Int? { nil }
    func labeled() -> (low: Int, high: Int) { (1, 2) }
    func opaque() -> some Collection<Int> { [4, 5] }
    func closure() -> (Int) -> Int { { $0 * 10 } }
    func token() -> Token { Token(id: bytes.count) }
    func optionalTry() -> Int { (try? Values.parse("7")) ?? 0 }
    func chained() -> Int {
        bytes
            .map { Int($0) }
            .reduce(0, +)
    }
    func any() -> Any { bytes.first ?? 0 }
    static func parse(_ text: String) throws -> Int {
        guard let value = Int(text) else { throw ParseError(input: text) }
        return value
    }
    // Kept with a `defer`: a `try` may leave before the value, and an `if` cannot be an argument.
    static func parsed(_ text: String) throws -> Int { try parse(text) }
    func choice() -> Int { if bytes.isEmpty { 0 } else { 1 } }

    static func run() -> String {
        var values = Values()
        values.size = 2
        let parts: [String] = [
            "\(values.count)", "\(values[0])", "\(values.size)", "\(values.literal())", "\(values.member())",
            "\(values.none() ?? -1)", "\(values.labeled().high)", "\(values.opaque().count)", "\(values.closure()(2))",
            "\(values.token().id)", "\(values.optionalTry())", "\(values.chained())", "\(values.any())",
            "\((try? Values.parsed("9")) ?? 0)", "\(values.choice())",
        ]
        return parts.joined(separator: " ")
    }
}

// The exit operator binds looser than anything a value can hold: ternaries, casts, ranges, `try?` inside an
// operand. A `try?` or `try!` that covers the whole value keeps the `defer`, as `try` would skip the exit.
extension Values {
    func sign() -> Int { bytes.isEmpty ? 0 : bytes.count > 2 ? 2 : 1 }
    func cast() -> Int? { any() as? Int }
    func range() -> ClosedRange<Int> { 1...bytes.count }
    func nested() -> Int { 1 + ((try? Values.parse("x")) ?? 5) }
    static func forced() -> Int { try! parse("4") }
    static func attempt() -> Int? { try? parse("y") }
    func pair() -> Int { bytes.count }; func other() -> Int { sign() + 1 }
    func given(_ token: consuming Token) -> Token { consume token }

    static func operands() -> String {
        let values = Values()
        let parts: [String] = [
            "\(values.sign())", "\(values.cast() ?? -1)", "\(values.range())", "\(values.nested())",
            "\(forced())", "\(attempt() ?? -1)", "\(values.pair())", "\(values.other())",
            "\(values.given(Token(id: 8)).id)",
        ]
        return parts.joined(separator: " ")
    }
}

// Build copies put code after a value back in its column on a line of its own; a `;` cannot start one.
extension Values {
    func semicolon() -> Int { 1; }
    var commented: Int { 2 /* two */ }; var next: Int { 3 }  // end
}
