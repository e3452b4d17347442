internal import CTrailShim

/// `TRAIL_*` variables override the code's configuration. A value that does not parse, is out of range or
/// would overflow is reported in one line on stderr (before any redirect), naming the variable, the value
/// and what is used instead; nothing is silently ignored and nothing traps.
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
        config.crashHandler = reader.flag("TRAIL_CRASH", default: config.crashHandler)
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
        warn("\(name)=\(value) \(why); using \(using)")
    }

    func choice<T: RawRepresentable>(_ name: String, _ names: [String], default fallback: T) -> T
    where T.RawValue == String {
        guard let value = text(name) else { return fallback }
        if let chosen = T(rawValue: value.lowercased()) { return chosen }
        reject(name, value, "is not one of \(names.joined(separator: ", "))", using: fallback.rawValue)
        return fallback
    }

    func flag(_ name: String, default fallback: Bool) -> Bool {
        guard let value = text(name) else { return fallback }
        switch value.lowercased() {
        case "1", "yes", "true", "on": return true
        case "0", "no", "false", "off": return false
        default:
            reject(name, value, "is not one of 1, 0, true, false, yes, no, on, off", using: fallback ? "1" : "0")
            return fallback
        }
    }

    func integer(_ name: String, _ range: ClosedRange<Int>, default fallback: Int, zeroMeansNoLimit: Bool = false)
        -> Int
    {
        guard let value = text(name) else { return fallback }
        if zeroMeansNoLimit, Int(value) == 0 { return range.upperBound }
        guard let number = Int(value) else {
            reject(name, value, "is not a whole number", using: "\(fallback)")
            return fallback
        }
        guard range.contains(number) else {
            let used = min(max(number, range.lowerBound), range.upperBound)
            reject(name, value, "is out of range (\(range.lowerBound) to \(range.upperBound))", using: "\(used)")
            return used
        }
        return number
    }

    /// `65536`, `64K`, `10M`, `1G`, `1T`: parsed, checked and worded by the C side's parser (settings.c), which
    /// the start-up settings use too.
    func bytes(_ name: String, _ range: ClosedRange<Int>, default fallback: Int, zeroMeansNoLimit: Bool = false) -> Int
    {
        guard let value = text(name) else { return fallback }
        if zeroMeansNoLimit, trail_size_is_zero(value) != 0 { return range.upperBound }
        var choice = trail_size_choice()
        trail_size_setting(
            value, UInt64(max(range.lowerBound, 0)), UInt64(range.upperBound), UInt64(max(fallback, 0)), &choice)
        let why = withUnsafeBytes(of: choice.why) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if !why.isEmpty {
            reject(
                name, value, why,
                using: withUnsafeBytes(of: choice.used) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
        }
        return Int(clamping: choice.value)
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
