/// Per-call state a viewer keeps while calls are open, indexed by the tag the stream hands back: slots of
/// ended calls are reused, so the pool grows with the calls open at once, never with all calls.
struct SlotPool<Element> {
    private(set) var items: [Element] = []
    private var free: [Int32] = []

    mutating func add(_ item: Element) -> Int32 {
        if let slot = free.popLast() {
            items[Int(slot)] = item
            return slot
        }
        items.append(item)
        return Int32(items.count - 1)
    }

    /// The slot may be reused from now on.
    mutating func release(_ slot: Int32) { free.append(slot) }

    subscript(slot: Int32) -> Element {
        get { items[Int(slot)] }
        set { items[Int(slot)] = newValue }
    }
}
