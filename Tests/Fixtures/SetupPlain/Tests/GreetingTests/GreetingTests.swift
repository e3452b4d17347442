import Greeting
import Testing

@Test func greets() { #expect(Greeting().text(for: "x") == "hello, x") }
