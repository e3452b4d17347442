/// VALUE and DATA records a reader skipped, cut or malformed (a truncated trace, a wrapped ring): never shown as
/// values, said once per file (`trail` prints it with the trace's other gaps).
public struct SkippedValues: Sendable {
    /// Records skipped.
    public internal(set) var records = 0
    /// Why the first was.
    public internal(set) var firstReason = ""

    mutating func skip(_ count: Int, because reason: String) {
        if records == 0 { firstReason = reason }
        records += count
    }

    /// `N value records were skipped (...)`, or nil when none were.
    public var note: String? {
        records == 0
            ? nil
            : "\(records) value record\(records == 1 ? " was" : "s were") skipped, cut or malformed (\(firstReason))"
    }
}
