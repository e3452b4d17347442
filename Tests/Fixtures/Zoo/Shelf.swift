/// Properties, subscripts, accessors and observers.
struct Animal: Equatable {
    let name: String
    let legs: Int
}

struct Shelf {
    private(set) var items: [Animal] = []
    var label: String {
        willSet { changes += 1 }
        didSet { changes += 1 }
    }
    var changes = 0

    init(name: String) {
        label = name
    }

    mutating func add(_ animal: Animal) {
        items.append(animal)
    }

    var names: [String] { items.map(\.name) }

    var totalLegs: Int {
        get { items.reduce(0) { $0 + $1.legs } }
    }

    var count: Int {
        get { items.count }
        set { items.removeLast(items.count - newValue) }
    }

    subscript(index: Int) -> Animal {
        get { items[index] }
        set(animal) { items[index] = animal }
    }

    subscript(named name: String) -> Animal? {
        items.first { $0.name == name }
    }
}

final class Counter {
    private(set) var value = 0
    var storage: Int {
        _read { yield value }
        _modify { yield &value }
    }

    func bump(by amount: Int = 1) {
        storage += amount
    }

    var parity: String {
        if value % 2 == 0 { "even" } else { "odd" }
    }

    static func sign(of number: Int) -> String {
        switch number {
        case ..<0: "negative"
        case 0: "zero"
        default: "positive"
        }
    }
}
