// Two small tools for the symbolizer's tables, which a one-crash run builds in about a millisecond: there the
// first use of a generic standard-library path costs the runtime tens of thousands of instructions.

/// Int keys (addresses, offsets) to Int32 values, by open addressing. A `Dictionary` with Int keys would do,
/// but its first use has the runtime scan every conformance record for `Int: Hashable`, about 100,000
/// instructions of a one-crash run that otherwise takes three million.
struct IntMap {
    private var keys: [Int] = []
    private var values: [Int32] = []
    private var count = 0
    private static let empty = Int.min

    subscript(key: Int) -> Int32? {
        get {
            guard !keys.isEmpty else { return nil }
            var slot = Self.slot(key, keys.count)
            while keys[slot] != Self.empty {
                if keys[slot] == key { return values[slot] }
                slot = (slot + 1) & (keys.count - 1)
            }
            return nil
        }
        set {
            guard let newValue, key != Self.empty else { return }  // removal is never needed here
            if (count + 1) * 2 > keys.count { grow() }
            var slot = Self.slot(key, keys.count)
            while keys[slot] != Self.empty, keys[slot] != key { slot = (slot + 1) & (keys.count - 1) }
            if keys[slot] == Self.empty { count += 1 }
            keys[slot] = key
            values[slot] = newValue
        }
    }

    private static func slot(_ key: Int, _ capacity: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: Int64(key)) &* 0x9E37_79B9_7F4A_7C15) >> 32) & (capacity - 1)
    }

    private mutating func grow() {
        let old = (keys, values)
        let capacity = Swift.max(64, keys.count * 2)
        keys = Array(repeating: Self.empty, count: capacity)
        values = Array(repeating: 0, count: capacity)
        count = 0
        for index in old.0.indices where old.0[index] != Self.empty { self[old.0[index]] = old.1[index] }
    }
}

/// The indices of `count` items in order of `key`, ties in index order. Packed as `key << 20 | index` when
/// keys fit in 44 bits, it is an integer sort; a sort with a closure costs a call per comparison.
func stableOrder(_ count: Int, key: (Int) -> UInt64) -> [Int] {
    if count < 1 << 20, (0 ..< count).allSatisfy({ key($0) < 1 << 44 }) {
        var packed = (0 ..< count).map { key($0) << 20 | UInt64($0) }
        packed.sort()
        return packed.map { Int($0 & 0xfffff) }
    }
    return (0 ..< count).sorted { (key($0), $0) < (key($1), $1) }
}
