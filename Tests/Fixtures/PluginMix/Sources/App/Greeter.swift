struct Greeter {
    let name: String

    func greet() -> String { "hello, \(name)" }
}
