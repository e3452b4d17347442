/// With --closures: one-expression closures whose types Swift infers from the body (left alone, or they
/// would stop compiling), and a multi-statement closure (traced).
enum Closures {
    struct Point: CustomStringConvertible {
        var x: Float, y: Float
        init(_ x: Float, _ y: Float) { self.x = x; self.y = y }
        var description: String { "(\(x), \(y))" }
    }

    static func apply<A, B, R>(_ a: A, _ b: B, _ body: (A, B) -> R) -> R { body(a, b) }

    /// The literals become `[T]` only through the closure's body.
    static func padded<T: FloatingPoint>(_ value: T) -> [T] {
        let values = [1] + (0 ..< 2).map { _ in value } + [2]
        return values
    }

    static func run() -> String {
        let point = apply(4, -3) { x, y in Point(x, y) }  // 4 and -3 are Floats because of the body
        let total = padded(0.5).reduce(0) { sum, value in
            let next = sum + value
            return next
        }
        return "\(point) \(total)"
    }
}
