internal import CTrailShim

/// `TRAIL_*` variables override the code's configuration. A value that does not parse, is out of range or
/// would overflow is reported in one line on stderr (before any redirect), naming the variable, the value
/// and what is used instead; nothing is silently ignored and nothing traps. Each kind of value is checked and
/// worded by the C side's settings.c, which reads the tracer's and the crash handler's variables at start-up:
/// one parser and one wording for both (SettingsTableTests runs the same values through both).
extension Trail.Configuration {
    func applyingEnvironment(
        _ environment: [String: String], warn: @escaping (String) -> Void = Self.warnOnStandardError
    )
        -> Trail.Configuration
    {
        var config = self
        let reader = SettingReader(environment: environment, warn: warn)
        if let directory = reader.text("TRAIL_LOG_DIR") { config.directory = directory }
        config.destination = reader.choice(
            "TRAIL_LOG", Destination.allCases.map(\.rawValue), default: config.destination)
        config.lineFormat = reader.choice(
            "TRAIL_LOG_FORMAT", LineFormat.allCases.map(\.rawValue), default: config.lineFormat)
        config.level = reader.choice("TRAIL_LOG_LEVEL", Logger.Level.allCases.map(\.rawValue), default: config.level)
        // For every limit, 0 means no limit (here: the largest value, 1T or a million files).
        config.maxFileSize = reader.bytes(
            "TRAIL_LOG_MAX_SIZE", Self.minimumFileSize ... Self.maximumSize, default: config.maxFileSize,
            zeroMeansNoLimit: true)
        config.maxFileAge = reader.seconds("TRAIL_LOG_MAX_AGE", default: config.maxFileAge)
        config.maxFiles = reader.integer(
            "TRAIL_LOG_MAX_FILES", 1 ... Self.maximumFiles, default: config.maxFiles, zeroMeansNoLimit: true)
        config.maxTotalSize = reader.bytes(
            "TRAIL_LOG_MAX_TOTAL", Self.minimumFileSize ... Self.maximumSize, default: config.maxTotalSize,
            zeroMeansNoLimit: true)
        let milliseconds = reader.integer("TRAIL_LOG_FLUSH_MS", 1 ... 60_000, default: Int(config.flushInterval * 1000))
        config.flushInterval = Double(milliseconds) / 1000
        config.durable = reader.flag("TRAIL_LOG_DURABLE", default: config.durable)
        // Read, and reported, with the crash settings at start-up (settings.c); unset, the code decides.
        let crash = trail_crash_setting()
        if crash >= 0 { config.crashHandler = crash != 0 }
        if let version = reader.text("TRAIL_APP_VERSION") { config.appVersion = version }
        return config
    }

    static func warnOnStandardError(_ line: String) { LogSink.writeAll(2, "trail: \(line)\n") }
}

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

extension Trail.Configuration {
    /// For the settings table test (trail-probe): what Swift's Settings make of `value` for the variable `name`,
    /// as text (sizes as 64K, choices by name), and the warning or ""; nil for a variable Swift does not read.
    @_spi(Testing) public static func checkSetting(_ name: String, _ value: String) -> (
        result: String, message: String
    )? {
        var message = ""
        let config = Trail.Configuration(appName: "probe").applyingEnvironment([name: value]) { message = $0 }
        let result: String
        switch name {
        case "TRAIL_LOG": result = config.destination.rawValue
        case "TRAIL_LOG_FORMAT": result = config.lineFormat.rawValue
        case "TRAIL_LOG_LEVEL": result = config.level.rawValue
        case "TRAIL_LOG_MAX_SIZE": result = size(config.maxFileSize)
        case "TRAIL_LOG_MAX_TOTAL": result = size(config.maxTotalSize)
        case "TRAIL_LOG_MAX_FILES": result = "\(config.maxFiles)"
        case "TRAIL_LOG_MAX_AGE": result = config.maxFileAge.map { "\(Int($0))s" } ?? "none"
        case "TRAIL_LOG_FLUSH_MS": result = "\(Int((config.flushInterval * 1000).rounded()))"
        case "TRAIL_LOG_DURABLE": result = config.durable ? "1" : "0"
        default: return nil
        }
        return (result, message)
    }

    private static func size(_ bytes: Int) -> String {
        var text = [CChar](repeating: 0, count: 32)
        trail_format_size(UInt64(bytes), &text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
