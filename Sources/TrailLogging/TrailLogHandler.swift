#if TrailLogging
public import Logging

/// A swift-log `LogHandler` that writes through Trail's log sink: the same file, rotation, bounds, text or
/// JSON lines (with the current traced call's `trace_id` and `span_id`), and the same tail beside a crash block
/// as Trail's own `Logger`. Bootstrap it after `Trail.bootstrap`:
///
///     try Trail.bootstrap()
///     LoggingSystem.bootstrap { TrailLogHandler(label: $0) }
///
/// The level starts at Trail's (`TRAIL_LOG_LEVEL`); metadata, metadata providers and `source` are kept.
public struct TrailLogHandler: LogHandler {
    public let label: String
    public var logLevel: Logging.Logger.Level
    public var metadata: Logging.Logger.Metadata = [:] {
        didSet { converted = Self.convert(metadata) }
    }
    public var metadataProvider: Logging.Logger.MetadataProvider?
    /// `metadata` in Trail's form, kept so that a line without metadata of its own converts nothing.
    private var converted: TrailMetadata = [:]

    public init(label: String, metadataProvider: Logging.Logger.MetadataProvider? = LoggingSystem.metadataProvider) {
        self.label = label
        // Both levels name the same seven cases with the same raw values.
        self.logLevel = Logging.Logger.Level(rawValue: TrailSink.defaultLevel.rawValue) ?? .info
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logging.Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// swift-log 1.12 and later (`error` came then) call this for every line the handler's level lets through.
    public func log(event: LogEvent) {
        var lineMetadata = converted
        if let provided = metadataProvider?.get(), !provided.isEmpty {
            lineMetadata.merge(Self.convert(provided)) { $1 }
        }
        if let explicit = event.metadata, !explicit.isEmpty {
            lineMetadata.merge(Self.convert(explicit)) { $1 }
        }
        if let error = event.error {
            lineMetadata["error.message"] = .string("\(error)")
            lineMetadata["error.type"] = .string(String(reflecting: type(of: error)))
        }
        // swift-log works the module out of the file's id when asked: only JSON lines, which name it, ask.
        TrailSink.write(
            level: Self.level(event.level), label: label, message: event.message.description, metadata: lineMetadata,
            module: TrailSink.namesModules ? event.source : nil, file: event.file, function: event.function,
            line: event.line)
    }

    static func level(_ level: Logging.Logger.Level) -> TrailLevel {
        switch level {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        case .critical: .critical
        }
    }

    static func convert(_ metadata: Logging.Logger.Metadata) -> TrailMetadata {
        metadata.mapValues(convert)
    }

    static func convert(_ value: Logging.Logger.Metadata.Value) -> TrailMetadataValue {
        switch value {
        case .string(let text): .string(text)
        case .stringConvertible(let convertible): .stringConvertible(convertible)
        case .dictionary(let values): .dictionary(values.mapValues(convert))
        case .array(let values): .array(values.map(convert))
        }
    }
}
#endif
