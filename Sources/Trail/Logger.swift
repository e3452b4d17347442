/// A leveled logger in the shape of swift-log's `Logger`: levels, metadata, and the source location captured
/// automatically. Below its level a call costs a comparison; the message is never built.
///
///     var log = Logger(label: "ItemStore")
///     log[metadataKey: "store"] = "items.json"
///     log.info("added \(item.serialNumber)", metadata: ["value": "\(item.valueInDollars)"])
///
/// Lines go to `LogSink.shared`, which `Trail.bootstrap` points at a rotating file or the console. Frozen: the
/// level check is inlined into the caller, which reads `logLevel` directly.
@frozen
public struct Logger: Sendable {
    public let label: String
    public var logLevel: Level
    public var metadata: Metadata = [:]
    /// Metadata added to every line at the moment it is written (a request id from a task local, say), as
    /// swift-log's provider is.
    public var metadataProvider: MetadataProvider?

    public init(label: String, level: Level? = nil) {
        self.label = label
        self.logLevel = level ?? LogSink.shared.defaultLevel
    }

    public init(label: String, metadataProvider: MetadataProvider) {
        self.init(label: label)
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> MetadataValue? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    @inlinable
    public func log(
        level: Level, _ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil,
        file: StaticString = #fileID, function: StaticString = #function, line: UInt = #line
    ) {
        guard level >= logLevel else { return }
        emit(level: level, message: message(), metadata: metadata(), file: file, function: function, line: line)
    }

    @usableFromInline
    func emit(
        level: Level, message: Message, metadata extra: Metadata?, file: StaticString, function: StaticString,
        line: UInt
    ) {
        emit(
            level: level, message: message, metadata: extra,
            source: LogSink.Source(file: file, function: function, line: line))
    }

    /// The logger's metadata, then the provider's, then the call's: a later one wins a key, as in swift-log.
    func emit(level: Level, message: Message, metadata extra: Metadata?, source: LogSink.Source) {
        let provided = metadataProvider?.get()
        guard extra?.isEmpty ?? true, provided?.isEmpty ?? true else {
            var merged = metadata
            if let provided { merged.merge(provided) { $1 } }
            if let extra { merged.merge(extra) { $1 } }
            return LogSink.shared.write(level: level, label: label, message: message, metadata: merged, source: source)
        }
        LogSink.shared.write(level: level, label: label, message: message, metadata: metadata, source: source)
    }

    @inlinable
    public func trace(
        _ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil,
        file: StaticString = #fileID, function: StaticString = #function, line: UInt = #line
    ) {
        log(level: .trace, message(), metadata: metadata(), file: file, function: function, line: line)
    }

    @inlinable
    public func debug(
        _ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil,
        file: StaticString = #fileID, function: StaticString = #function, line: UInt = #line
    ) {
        log(level: .debug, message(), metadata: metadata(), file: file, function: function, line: line)
    }

    @inlinable
    public func info(
        _ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil,
        file: StaticString = #fileID, function: StaticString = #function, line: UInt = #line
    ) {
        log(level: .info, message(), metadata: metadata(), file: file, function: function, line: line)
    }

    @inlinable
    public func notice(
        _ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil,
        file: StaticString = #fileID, function: StaticString = #function, line: UInt = #line
    ) {
        log(level: .notice, message(), metadata: metadata(), file: file, function: function, line: line)
    }

    @inlinable
    public func warning(
        _ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil,
        file: StaticString = #fileID, function: StaticString = #function, line: UInt = #line
    ) {
        log(level: .warning, message(), metadata: metadata(), file: file, function: function, line: line)
    }

    @inlinable
    public func error(
        _ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil,
        file: StaticString = #fileID, function: StaticString = #function, line: UInt = #line
    ) {
        log(level: .error, message(), metadata: metadata(), file: file, function: function, line: line)
    }

    @inlinable
    public func critical(
        _ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil,
        file: StaticString = #fileID, function: StaticString = #function, line: UInt = #line
    ) {
        log(level: .critical, message(), metadata: metadata(), file: file, function: function, line: line)
    }
}

/// `Trail.Logger`, for a file that also imports swift-log's `Logging`, where `Logger` names two types (and
/// `Trail` names the enum below before the module).
public typealias TrailLogger = Logger

extension Trail {
    public typealias Logger = TrailLogger
}

extension Logger {
    @frozen
    public enum Level: String, Codable, CaseIterable, Comparable, Sendable {
        case trace, debug, info, notice, warning, error, critical

        @inlinable var rank: Int {
            switch self {
            case .trace: 0
            case .debug: 1
            case .info: 2
            case .notice: 3
            case .warning: 4
            case .error: 5
            case .critical: 6
            }
        }

        @inlinable public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rank < rhs.rank }

        /// The raw value as a static string: a line copies its bytes without a String in between.
        var name: StaticString {
            switch self {
            case .trace: "trace"
            case .debug: "debug"
            case .info: "info"
            case .notice: "notice"
            case .warning: "warning"
            case .error: "error"
            case .critical: "critical"
            }
        }
    }

    public typealias Metadata = [String: MetadataValue]

    @frozen
    public enum MetadataValue: Sendable, Equatable, CustomStringConvertible, ExpressibleByStringLiteral,
        ExpressibleByStringInterpolation, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
    {
        case string(String)
        case stringConvertible(any CustomStringConvertible & Sendable)
        case dictionary(Metadata)
        case array([MetadataValue])

        public init(stringLiteral value: String) { self = .string(value) }
        public init(arrayLiteral elements: MetadataValue...) { self = .array(elements) }
        public init(dictionaryLiteral elements: (String, MetadataValue)...) {
            self = .dictionary(Dictionary(elements) { $1 })
        }

        public var description: String {
            switch self {
            case .string(let text): text
            case .stringConvertible(let value): value.description
            case .dictionary(let values):
                "[" + values.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "]"
            case .array(let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
            }
        }

        public static func == (lhs: MetadataValue, rhs: MetadataValue) -> Bool { lhs.description == rhs.description }
    }
}
