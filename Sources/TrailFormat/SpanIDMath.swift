/// Docs/trace-format.md, "Span and trace ids": how a process's calls are named outside it, shared by every reader
/// (the runtime's C side, span_ids.c, is its twin; JSONLogTests checks them against each other).
public enum SpanIDMath {
    /// A process's salt: `mix(wall-clock start) ^ mix(pid << 32 | FNV-1a of the host name)`.
    public static func salt(wallClockStart: UInt64, pid: UInt32, host: String) -> UInt64 {
        mix(wallClockStart) ^ mix(UInt64(pid) << 32 | UInt64(fnv1a32(host)))
    }

    /// The id a call with reader span id `raw` is exported and logged with: salted, 1 where that gives 0.
    public static func exported(_ raw: UInt64, salt: UInt64) -> UInt64 {
        let salted = raw ^ salt
        return salted == 0 ? 1 : salted
    }

    /// SplitMix64's finalizer.
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// FNV-1a, 32 bits, over the UTF-8 bytes.
    public static func fnv1a32(_ text: String) -> UInt32 {
        var hash: UInt32 = 0x811c_9dc5
        for byte in text.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        return hash
    }
}
