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
