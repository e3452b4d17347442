/// An appraisal of the whole inventory: async, as if each item's price came from a remote service.
struct Appraisal {
    let count: Int
    let total: Int
    let mostValuable: Item?

    static func appraise(_ items: [Item]) async -> Appraisal {
        var total = 0
        for item in items {
            total += await marketValue(of: item)
        }
        return Appraisal(
            count: items.count, total: total, mostValuable: items.max { $0.valueInDollars < $1.valueInDollars })
    }

    /// Items gain 10% on the market; the pause stands in for a network round trip.
    static func marketValue(of item: Item) async -> Int {
        await Task.yield()
        return item.valueInDollars + item.valueInDollars / 10
    }
}
