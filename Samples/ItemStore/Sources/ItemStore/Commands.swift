import Foundation

/// What the command line asks for.
enum Command {
    case add(name: String, value: Int)
    case edit(serial: String, name: String?, value: Int?)
    case remove(serial: String)
    case list(SortOrder)
    case appraise
    case survey
    case demo

    static let usage = """
        usage: ItemStore [--store FILE] <command>
          add NAME VALUE                  create an item
          edit SERIAL [--name N] [--value V]
          remove SERIAL
          list [name|value|date]
          appraise                        value the inventory (async)
          survey                          value every item at once (task group, async let, Task {})
          demo                            a fixed script in a fresh store
        """

    init(_ arguments: [String]) throws {
        guard let verb = arguments.first else { throw UsageError() }
        let rest = Array(arguments.dropFirst())
        switch (verb, rest.count) {
        case ("add", 2):
            guard let value = Int(rest[1]) else { throw UsageError() }
            self = .add(name: rest[0], value: value)
        case ("edit", 1...):
            let options = Self.options(Array(rest.dropFirst()))
            self = .edit(serial: rest[0], name: options["--name"], value: options["--value"].flatMap { Int($0) })
        case ("remove", 1):
            self = .remove(serial: rest[0])
        case ("list", 0): self = .list(.date)
        case ("list", 1):
            guard let order = SortOrder(rawValue: rest[0]) else { throw UsageError() }
            self = .list(order)
        case ("appraise", 0): self = .appraise
        case ("survey", 0): self = .survey
        case ("demo", 0): self = .demo
        default: throw UsageError()
        }
    }

    private static func options(_ arguments: [String]) -> [String: String] {
        var result: [String: String] = [:]
        for pair in stride(from: 0, to: arguments.count - 1, by: 2) {
            result[arguments[pair]] = arguments[pair + 1]
        }
        return result
    }

    func run(on store: Store) async throws {
        switch self {
        case .add(let name, let value):
            print("added", try store.create(name: name, value: value))
            try store.save()
        case .edit(let serial, let name, let value):
            print("edited", try store.edit(serial: serial, name: name, value: value))
            try store.save()
        case .remove(let serial):
            print("removed", try store.remove(serial: serial))
            try store.save()
        case .list(let order):
            Report.list(store.sorted(by: order), total: store.totalValue)
        case .appraise:
            Report.appraisal(await Appraisal.appraise(store.items))
        case .survey:
            Report.survey(await Survey.run(store.items))
        case .demo:
            try await Demo.run(on: store)
        }
    }
}

struct UsageError: Error {}

enum Report {
    static func list(_ items: [Item], total: Int) {
        for item in items {
            print(item)
        }
        print("\(items.count) item(s), \(total.dollars) in all")
    }

    static func appraisal(_ appraisal: Appraisal) {
        print(
            "appraised \(appraisal.count) item(s) at \(appraisal.total.dollars); most valuable: \(appraisal.mostValuable?.name ?? "none")"
        )
    }

    static func survey(_ survey: Survey) {
        print("surveyed \(survey.count) item(s) at \(survey.total.dollars); \(survey.audit); \(survey.note)")
    }
}

/// The same steps every time, in a store of its own: the trace of this run is the Sample's transcript.
enum Demo {
    static func run(on store: Store) async throws {
        let lamp = try store.create(name: "Lamp", value: 40)
        try store.create(name: "Bicycle", value: 350)
        let sofa = try store.create(name: "Sofa", value: 1_250)
        _ = try store.edit(serial: lamp.serialNumber, value: 45)
        try store.remove(serial: sofa.serialNumber)
        do {
            try store.remove(serial: sofa.serialNumber)
        } catch {
            print("error:", error)
        }
        Report.list(store.sorted(by: .value), total: store.totalValue)
        Report.appraisal(await Appraisal.appraise(store.items))
        try store.save()
    }
}
