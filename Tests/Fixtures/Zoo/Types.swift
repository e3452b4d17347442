/// Operators, generics, enums, protocols with extensions, nested types and functions, and every kind of init.
struct Vector: CustomStringConvertible {
    var x: Double
    var y: Double
    static let zero = Vector(x: 0, y: 0)

    static func + (lhs: Vector, rhs: Vector) -> Vector { Vector(x: lhs.x + rhs.x, y: lhs.y + rhs.y) }
    static prefix func - (vector: Vector) -> Vector { Vector(x: -vector.x, y: -vector.y) }
    var length: Double { (x * x + y * y).squareRoot() }
    var description: String { "(\(x), \(y))" }
}

protocol Describing {
    var summary: String { get }
    func describe() -> String
}

extension Describing {
    func describe() -> String { "<" + summary + ">" }
}

struct Box<Value>: Describing {
    var value: Value
    init(_ value: Value) { self.value = value }
    func map<T>(_ transform: (Value) -> T) -> Box<T> { Box<T>(transform(value)) }
    var summary: String { "\(value)" }
}

enum Shape {
    case circle(radius: Double)
    case square(side: Double)

    init?(code: Int) {
        guard code == 1 else { return nil }
        self = .circle(radius: 1)
    }

    var kind: String {
        switch self {
        case .circle: return "circle"
        case .square: return "square"
        }
    }
}

class Base {
    let id: Int
    required init(id: Int) { self.id = id }
    convenience init() { self.init(id: 0) }
}

final class Node: Base {
    let value: Int
    let doubled: Int

    init(value: Int) throws {
        // Not all stored properties are set when the trace call runs.
        self.value = value
        doubled = Node.twice(value)
        super.init(id: value)
    }

    required init(id: Int) {
        value = id
        doubled = id * 2
        super.init(id: id)
    }

    static func make(count: Int) -> [Base] {
        func one(_ index: Int) -> Base { Node(id: index) }
        return (0 ..< count).map(one)
    }

    private static func twice(_ value: Int) -> Int { value * 2 }
}

func largest<T: Comparable>(_ values: [T]) -> T {
    values.max()!
}

struct Pair<A, B> {
    let first: A
    let second: B
    init(_ first: A, _ second: B) {
        self.first = first
        self.second = second
    }
    func swapped() -> Pair<B, A> { Pair<B, A>(second, first) }
}

enum Lifecycle {
    final class Resource {
        let name: String
        init(name: String) { self.name = name }
        deinit { print("released", name) }
    }

    static func run() {
        let resource = Resource(name: "r1")
        print("using", resource.name)
    }
}
