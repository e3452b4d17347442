/// A log line's time, as the writer gives it (C's `trail_format_timestamp`): RFC 3339 in UTC.
public enum LogTime {
    /// `2026-12-02T11:36:51.123456789Z` (any number of fraction digits, UTC only) as nanoseconds since the epoch.
    public static func parse<Text: StringProtocol>(_ text: Text) -> UInt64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == 90, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84, bytes[13] == 58,
            bytes[16] == 58
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard bytes[index] >= 48, bytes[index] <= 57 else { return nil }
                value = value * 10 + Int(bytes[index] - 48)
            }
            return value
        }
        guard let year = number(0 ..< 4), let month = number(5 ..< 7), let day = number(8 ..< 10),
            let hour = number(11 ..< 13),
            let minute = number(14 ..< 16), let second = number(17 ..< 19), (1 ... 12).contains(month),
            (1 ... 31).contains(day)
        else { return nil }
        var nanoseconds = 0
        if bytes[19] == 46 {
            let digits = bytes.count - 21
            guard digits >= 1, digits <= 9, let fraction = number(20 ..< bytes.count - 1) else { return nil }
            nanoseconds =
                fraction
                * [1, 10, 100, 1000, 10000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000][9 - digits]
        } else if bytes.count != 20 {
            return nil
        }
        // Days since the epoch of a proleptic Gregorian date (the civil-from-days algorithm, inverted).
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = shiftedYear / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = days * 86400 + hour * 3600 + minute * 60 + second
        guard seconds >= 0 else { return nil }
        return UInt64(seconds) * 1_000_000_000 + UInt64(nanoseconds)
    }
}
