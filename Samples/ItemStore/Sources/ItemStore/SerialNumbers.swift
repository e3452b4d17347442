/// Where serial numbers come from: random in use, seeded for a reproducible demo.
protocol SerialNumberSource {
    mutating func next() -> String
}

/// A small, fast generator (SplitMix64): the same seed always gives the same serials.
struct SeededSerials: SerialNumberSource {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> String {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        mixed ^= mixed >> 31
        return Self.format(mixed)
    }

    /// Eight characters from an alphabet without look-alikes (no 0/O, 1/I).
    static func format(_ value: UInt64) -> String {
        let alphabet = Array("23456789ABCDEFGHJKLMNPQRSTUVWXYZ")
        var value = value
        var serial = ""
        for _ in 0 ..< 8 {
            serial.append(alphabet[Int(value % UInt64(alphabet.count))])
            value /= UInt64(alphabet.count)
        }
        return serial
    }
}

struct RandomSerials: SerialNumberSource {
    private var generator = SystemRandomNumberGenerator()

    mutating func next() -> String {
        SeededSerials.format(generator.next())
    }
}
