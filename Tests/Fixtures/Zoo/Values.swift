// Bodies that are one value: their exit folds around the value (`return Trail.exit(returning: value)`), which
// must type-check as the bare value did, whatever its type and however it is written.
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
