/// What the rewriter leaves alone: inlinable and transparent bodies, result builders, `trail:ignore`.
@resultBuilder
enum Joined {
    static func buildBlock(_ parts: String...) -> String { parts.joined(separator: "+") }
}

public enum Skips {
    @inlinable public static func inlined(_ value: Int) -> Int { value + 1 }

    @_transparent public static func transparent(_ value: Int) -> Int { value + 2 }

    // trail:ignore
    static func ignored(_ value: Int) -> Int { value + 3 }

    @Joined static var built: String {
        "a"
        "b"
    }

    static func withClosure() -> Int {
        let add = { (a: Int, b: Int) -> Int in a + b }
        return [1, 2, 3].map { value in add(value, 1) }.reduce(0, +)
    }
}
