internal import CTrailShim

/// Reads one kind of value each; an empty variable counts as unset.
struct SettingReader {
    let environment: [String: String]
    let warn: (String) -> Void

    func text(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }

    private func reject(_ name: String, _ value: String, _ why: String, using: String) {
        var line = [CChar](repeating: 0, count: 512)
        trail_format_setting_warning(&line, line.count, name, value, why, using)
        warn(String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// Reports the value when the C check says it is not used as given; returns what is used.
    private func checked(_ name: String, _ value: String, _ choice: trail_setting_choice) -> UInt64 {
        let why = Self.text(of: choice.why)
        if !why.isEmpty { reject(name, value, why, using: Self.text(of: choice.used)) }
        return choice.value
    }

    private static func text<T>(of field: T) -> String {
        withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    func choice<T: RawRepresentable>(_ name: String, _ names: [String], default fallback: T) -> T
    where T.RawValue == String {
        guard let value = text(name) else { return fallback }
        var choice = trail_setting_choice()
        trail_choice_setting(
            value, names.joined(separator: ","), UInt64(names.firstIndex(of: fallback.rawValue)!), &choice)
        return T(rawValue: names[Int(checked(name, value, choice))]) ?? fallback
    }

    /// 1/0, true/false, yes/no, on/off.
    func flag(_ name: String, default fallback: Bool) -> Bool {
        guard let value = text(name) else { return fallback }
        var choice = trail_setting_choice()
        trail_switch_setting(value, fallback ? 1 : 0, &choice)
        return checked(name, value, choice) != 0
    }

    /// Digits only: a negative number is not a count (for a limit, 0 would mean none).
    func integer(_ name: String, _ range: ClosedRange<Int>, default fallback: Int, zeroMeansNoLimit: Bool = false)
        -> Int
    {
        guard let value = text(name) else { return fallback }
        if zeroMeansNoLimit, value.allSatisfy({ $0 == "0" }) { return range.upperBound }
        var choice = trail_setting_choice()
        trail_count_setting(
            value, UInt64(max(range.lowerBound, 0)), UInt64(range.upperBound), UInt64(max(fallback, 0)), &choice)
        return Int(clamping: checked(name, value, choice))
    }

    /// `65536`, `64K`, `10M`, `1G`, `1T`.
    func bytes(_ name: String, _ range: ClosedRange<Int>, default fallback: Int, zeroMeansNoLimit: Bool = false) -> Int
    {
        guard let value = text(name) else { return fallback }
        if zeroMeansNoLimit, trail_size_is_zero(value) != 0 { return range.upperBound }
        var choice = trail_setting_choice()
        trail_size_setting(
            value, UInt64(max(range.lowerBound, 0)), UInt64(range.upperBound), UInt64(max(fallback, 0)), &choice)
        return Int(clamping: checked(name, value, choice))
    }

    /// `90`, `90s`, `15m`, `1h`, `1d`: more than 0 and at most a year.
    func seconds(_ name: String, default fallback: Double?) -> Double? {
        guard let value = text(name) else { return fallback }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        var number = Double(value)
        if number == nil, let last = value.last, let unit = units[last] {
            number = Double(value.dropLast()).map { $0 * unit }
        }
        let shownFallback = fallback.map { "\($0)s" } ?? "no age limit"
        guard let number, number.isFinite else {
            reject(name, value, "is not a duration such as 90, 90s, 15m, 1h or 1d", using: shownFallback)
            return fallback
        }
        guard number > 0, number <= 366 * 86400 else {
            reject(name, value, "is out of range (more than 0, at most 366d)", using: shownFallback)
            return fallback
        }
        return number
    }
}
