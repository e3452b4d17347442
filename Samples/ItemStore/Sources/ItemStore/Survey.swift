/// Every item valued at once, as a service fanning out to a remote price source would: the shapes of
/// structured and unstructured concurrency whose traces nest under the function that started them.
struct Survey {
    let count: Int
    let total: Int
    let audit: String
    let note: String

    static func run(_ items: [Item]) async -> Survey {
        // A task-group child per item.
        let total = await withTaskGroup(of: Int.self) { group in
            for item in items {
                group.addTask { await Appraisal.marketValue(of: item) }
            }
            return await group.reduce(0, +)
        }
        // A child task by `async let`, and an unstructured task, which inherits the caller's context.
        async let audit = audit(items)
        let note = Task { await summary(of: items.count) }
        // A detached task starts a trace tree of its own.
        await Task.detached { await housekeeping() }.value
        return Survey(count: items.count, total: total, audit: await audit, note: await note.value)
    }

    static func audit(_ items: [Item]) async -> String {
        await Task.yield()
        return items.allSatisfy { $0.valueInDollars >= 0 } ? "audit clean" : "audit found negative values"
    }

    static func summary(of count: Int) async -> String {
        await Task.yield()
        return count == 1 ? "1 item" : "\(count) items"
    }

    static func housekeeping() async {
        await Task.yield()
    }
}
