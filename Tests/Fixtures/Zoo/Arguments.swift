// Parameters of every kind, for builds with values (`--values`): each is passed to `Trail.value` after the entry
// (or left out), and must compile without a warning under Swift 5 and 6, read nothing the body changed, copy no
// noncopyable value and evaluate no autoclosure. Run with the argument `arguments` (the zoo's transcript leaves
// them out).
protocol Shape2D {
    var area: Double { get }
}

struct Tile: Shape2D {
    var side: Double
    var area: Double { side * side }
}

final class Ledger {
    var entries: [String] = []
}

actor Tally {
    var total = 0
    func add(_ amount: Int, note: String?) -> Int {
        total += amount
        return total
    }
}

struct Ticket: ~Copyable {
    var number: Int
}

enum Arguments {
    static func scalars(
        i: Int, i8: Int8, u16: UInt16, u: UInt, f: Float, d: Double, b: Bool, c: Character, s: String,
        sub: Substring, p: OpaquePointer?
    ) -> String { "\(i) \(i8) \(u16) \(u) \(f) \(d) \(b) \(c) \(s) \(sub) \(p == nil)" }
    static func optionals(_ a: Int?, _ b: String?, c: Double!) -> Int { (a ?? 0) + (b?.count ?? 0) + Int(c) }
    static func counted(_ values: Int..., names: String...) -> Int { values.count + names.count }
    static func collections(_ list: [UInt8], _ map: [String: Int], _ set: Set<Int>) -> Int {
        list.count + map.count + set.count
    }
    static func bump(_ value: inout Int, by step: Int) {
        value += step
    }
    static func lazy(_ flag: Bool, _ message: @autoclosure () -> String) -> String { flag ? message() : "lazy" }
    static func apply(_ body: (Int) -> Int, to value: Int) -> Int { body(value) }
    /// Keywords as parameter names: the body writes them in backticks.
    static func keywords(extension: String, in: Int, default: Int) -> Int { `extension`.count + `in` + `default` }
    /// A function type by its alias: a non-escaping closure all the same.
    typealias Step = (inout Int) throws -> Void
    static func stepped(_ step: Step, from start: Int) -> Int {
        var value = start
        try? step(&value)
        return value
    }
    static func escaping(_ body: @escaping @Sendable () -> Int) -> Int { body() }
    static func generic<T: Comparable>(_ a: T, _ b: T) -> T { max(a, b) }
    static func opaque(_ shape: some Shape2D) -> Double { shape.area }
    static func existential(_ shape: any Shape2D, _ kind: any Shape2D.Type) -> String { "\(shape.area) \(kind)" }
    static func metatype(_ type: Int.Type) -> String { "\(type)" }
    static func reference(_ ledger: Ledger, _ line: String) -> Int {
        ledger.entries.append(line)
        return ledger.entries.count
    }
    static func borrowed(_ ticket: borrowing Ticket) -> Int { ticket.number }
    static func consumed(_ ticket: consuming Ticket) -> Int { ticket.number }
    static func span(_ bytes: Span<UInt8>) -> Int { bytes.count }
    static func shadowed(_ count: Int) -> Int {
        var count = count
        count += 1
        return count
    }
    static func secret(user: String, password: String, apiKey: String) -> Int {
        user.count + password.count + apiKey.count
    }
    // Named like a secret: its result is never passed, nor is the `secret` one's above.
    static func sessionToken(for user: String) throws -> String {
        guard !user.isEmpty else { throw ParseError(input: user) }
        return "t-" + user
    }
    /// Wider or narrower than a record's payload: recorded by their text.
    static func wide(_ big: Int128, _ unsigned: UInt128?, half: Float16) -> UInt128 {
        UInt128(big) * 2 + (unsigned ?? 0) + UInt128(half)
    }
    static func tuple(_ pair: (Int, String)) -> String { "\(pair.0)\(pair.1)" }
    static func unnamed(_: Int, _ kept: Int) -> Int { kept }
    static func throwing(_ text: String) throws(ParseError) -> Int {
        guard let value = Int(text) else { throw ParseError(input: text) }
        return value
    }
    static func pointer(_ bytes: UnsafePointer<UInt8>, _ raw: UnsafeRawPointer) -> UInt8 { bytes.pointee }
    @MainActor static func isolated(_ ledger: Ledger) -> Int { ledger.entries.count }
    static func onActor(_ tally: isolated Tally, _ amount: Int) -> Int { tally.total + amount }

    static func sent(_ ledger: sending Ledger, _ label: consuming String) -> Task<Int, Never> {
        let count = label.count
        return Task { ledger.entries.count + count }
    }

    @MainActor static func run() async -> String {
        var number = 1
        bump(&number, by: 2)
        let ledger = Ledger()
        let bytes: [UInt8] = [7, 8]
        let ticket = Ticket(number: 9)
        let parts = [
            scalars(i: -3, i8: 4, u16: 5, u: 6, f: 1.5, d: 2.25, b: true, c: "é", s: "str", sub: "sub"[...], p: nil),
            "\(optionals(1, nil, c: 2))", "\(counted(1, 2, names: "a"))", "\(collections(bytes, ["k": 1], [3]))",
            "\(number)", lazy(false, "never"), "\(apply({ $0 * 2 }, to: 4))", "\(escaping { 5 })",
            "\(generic(3, 8))", "\(opaque(Tile(side: 2)))", existential(Tile(side: 1), Tile.self),
            metatype(Int.self), "\(reference(ledger, "line"))", "\(borrowed(ticket))", "\(shadowed(4))",
            "\(secret(user: "u", password: "hunter2", apiKey: "k"))", tuple((1, "x")), "\(unnamed(1, 2))",
            "\((try? throwing("12")) ?? 0) \((try? throwing("x")) ?? -1)",
            "\(bytes.withUnsafeBufferPointer { pointer($0.baseAddress!, UnsafeRawPointer($0.baseAddress!)) })",
            "\(isolated(ledger))", "\(await Tally().add(3, note: nil))", "\(span(bytes.span))", "\(consumed(ticket))",
            "\(await sent(Ledger(), "ab").value)", "\(stepped({ $0 += 1 }, from: 6))",
            "\(keywords(extension: "ab", in: 1, default: 2))", "\(pointed(bytes))", (try? sessionToken(for: "u")) ?? "",
            "\(wide(12_345_678_901_234_567_890_123, nil, half: 0.5))",
        ]
        return parts.joined(separator: " ")
    }
}

extension Arguments {
    /// A parameter of the toolchain's alias of a function type, which no scan finds: a non-escaping closure.
    static func everything(in range: UnboundedRange, of items: [Int]) -> Int { items[range].count }

    /// Pointers of each standard type, optional or not, given and returned: recorded by their address.
    static func pointers(
        _ bytes: UnsafePointer<UInt8>, _ mutable: UnsafeMutablePointer<UInt8>?, _ raw: Swift.UnsafeRawPointer!,
        _ none: UnsafeMutableRawPointer?
    ) -> UnsafePointer<UInt8> { bytes + 1 }

    static func last(_ bytes: UnsafePointer<UInt8>, count: Int) -> UnsafeMutablePointer<UInt8>? {
        guard count > 0 else { return nil }
        return UnsafeMutablePointer(mutating: bytes + (count - 1))
    }

    static func pointed(_ bytes: [UInt8]) -> UInt8 {
        var copy = bytes
        return copy.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            let second = pointers(base, base, UnsafeRawPointer(base), nil)
            return second.pointee + (last(second, count: 0) == nil ? 0 : 1) + last(base, count: 2)!.pointee
        }
    }
}
