import Foundation

enum StoreError: Error, CustomStringConvertible {
    case notFound(serial: String)
    case invalidValue(Int)
    case emptyName

    var description: String {
        switch self {
        case .notFound(let serial): "no item with serial number \(serial)"
        case .invalidValue(let value): "value must not be negative (got \(value))"
        case .emptyName: "an item needs a name"
        }
    }
}

/// The inventory: creates, edits, removes and lists items, and saves them through its persistence.
final class Store {
    private(set) var items: [Item] = []
    private var serials: any SerialNumberSource
    private let persistence: any ItemPersistence
    private let clock: () -> Date

    init(persistence: any ItemPersistence, serials: any SerialNumberSource, clock: @escaping () -> Date = Date.init)
        throws
    {
        self.persistence = persistence
        self.serials = serials
        self.clock = clock
        items = try persistence.load()
    }

    @discardableResult
    func create(name: String, value: Int) throws -> Item {
        try validate(name: name, value: value)
        let item = Item(name: name, serialNumber: serials.next(), valueInDollars: value, dateCreated: clock())
        items.append(item)
        return item
    }

    func edit(serial: String, name: String? = nil, value: Int? = nil) throws -> Item {
        let index = try position(of: serial)
        try validate(name: name ?? items[index].name, value: value ?? items[index].valueInDollars)
        if let name { items[index].name = name }
        if let value { items[index].valueInDollars = value }
        return items[index]
    }

    @discardableResult
    func remove(serial: String) throws -> Item {
        items.remove(at: try position(of: serial))
    }

    func sorted(by order: SortOrder) -> [Item] {
        items.sorted(by: order.areInIncreasingOrder)
    }

    var totalValue: Int { items.reduce(0) { $0 + $1.valueInDollars } }

    func save() throws {
        try persistence.save(items)
    }

    private func position(of serial: String) throws -> Int {
        guard let index = items.firstIndex(where: { $0.serialNumber == serial }) else {
            throw StoreError.notFound(serial: serial)
        }
        return index
    }

    private func validate(name: String, value: Int) throws {
        if name.isEmpty { throw StoreError.emptyName }
        if value < 0 { throw StoreError.invalidValue(value) }
    }
}

enum SortOrder: String {
    case name, value, date

    var areInIncreasingOrder: (Item, Item) -> Bool {
        switch self {
        case .name: return { $0.name < $1.name }
        case .value: return { $0.valueInDollars > $1.valueInDollars }
        case .date: return { $0.dateCreated < $1.dateCreated }
        }
    }
}
