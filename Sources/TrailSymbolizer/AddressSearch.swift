/// Lookups in tables sorted by start address, shared by the unit, line, function and symbol tables.
enum AddressSearch {
    /// In `items` sorted by start: the index just past the last item that starts at or before `address`.
    static func partition<Items: RandomAccessCollection>(
        _ address: UInt64, in items: Items,
        start: (Items.Element) -> UInt64
    ) -> Int where Items.Index == Int {
        var low = items.startIndex
        var high = items.endIndex
        while low < high {
            let middle = (low + high) / 2
            if start(items[middle]) <= address { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The nearest of the last `lookBack` items starting at or before `address` that also ends after it
    /// (ranges can overlap or nest).
    static func containing<Items: RandomAccessCollection>(
        _ address: UInt64, in items: Items, lookBack: Int, start: (Items.Element) -> UInt64,
        end: (Items.Element) -> UInt64
    ) -> Items.Element? where Items.Index == Int {
        let past = partition(address, in: items, start: start)
        return items[max(items.startIndex, past - lookBack) ..< past].last { address < end($0) }
    }
}
