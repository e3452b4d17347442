/// UInt64 keys (never 0) to Int32 values: open addressing, for the per-record site lookup.
struct AddressMap {
    private var keys: [UInt64] = Array(repeating: 0, count: 1024)
    private var values: [Int32] = Array(repeating: 0, count: 1024)
    private var count = 0

    @inline(__always) func find(_ key: UInt64) -> Int32? {
        let mask = keys.count - 1
        var slot = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
        while true {
            let found = keys[slot]
            if found == key { return values[slot] }
            if found == 0 { return nil }
            slot = (slot + 1) & mask
        }
    }

    mutating func insert(_ key: UInt64, _ value: Int32) {
        if (count + 1) * 2 > keys.count { grow() }
        let mask = keys.count - 1
        var slot = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
        while keys[slot] != 0, keys[slot] != key { slot = (slot + 1) & mask }
        if keys[slot] == 0 { count += 1 }
        keys[slot] = key
        values[slot] = value
    }

    private mutating func grow() {
        let old = zip(keys, values).filter { $0.0 != 0 }
        keys = Array(repeating: 0, count: keys.count * 2)
        values = Array(repeating: 0, count: keys.count)
        count = 0
        for (key, value) in old { insert(key, value) }
    }
}
