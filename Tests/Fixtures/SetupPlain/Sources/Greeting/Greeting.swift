public struct Greeting {
    public init() {}

    public func text(for name: String) -> String { "hello, \(name)" }
}
