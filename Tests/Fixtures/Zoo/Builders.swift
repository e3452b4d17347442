import ZooLog

/// Result builders no attribute points to: requirements of this module's protocols, whose witnesses in the
/// conforming declaration are transformed, and of ZooLog's `Card`, recognized by the shape of the body.
@resultBuilder
enum Words {
    static func buildExpression(_ word: String) -> String { word }
    static func buildExpression(_ number: Int) -> String { "#\(number)" }
    static func buildBlock(_ parts: String...) -> String { parts.joined(separator: " ") }
}

protocol Sentence {
    @Words var text: String { get }
}

protocol Greeting: Sentence {}

/// One expression that is no `String`: only the builder makes it one, so `return 1` would not compile.
struct Hello: Greeting {
    var text: String { 1 }
}

struct Bye {}

extension Bye: Sentence & Equatable {
    var text: String {
        "bye"
        2
    }
}

/// Not a witness: the conformance is stated elsewhere, so no builder applies and the body is traced.
struct Plain {
    var text: String { "plain" }
}

/// A `return` turns the builder off: traced.
struct Explicit: Sentence {
    var text: String { return "explicit" }
}

struct Menu: Card {
    var show: Bool
    var items: [String]

    var lines: [String] {
        "menu"
        if show { "shown" }
        for item in items { item }
    }
}

struct Banner: Card {
    var lines: [String] { for index in 1 ... 2 { "banner \(index)" } }
}

struct Choice: Card {
    var pick: Int

    var lines: [String] {
        switch pick {
        case 0:
            let word = "zero"
            word
        default: "other"
        }
    }
}

struct Fixed: Card {
    var lines: [String] { return ["fixed"] }
}

enum Builders {
    static func run() -> String {
        let cards: [any Card] = [Menu(show: true, items: ["a", "b"]), Banner(), Choice(pick: 0), Fixed()]
        return ([Hello().text, Bye().text, Plain().text, Explicit().text] + cards.map { $0.render() }).joined(separator: ", ")
    }
}
