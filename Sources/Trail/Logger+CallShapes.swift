/// swift-log's call shapes, so that a file moves from `import Logging` to `import Trail` by its import alone:
/// `source:`, a `file:`/`function:` passed on as `String`, and metadata providers. A call that passes none of
/// them resolves to the static overloads in Logger.swift, which copy the file name without a `String`.
extension Logger {
    @inlinable
    public func log(
        level: Level, _ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil,
        source: @autoclosure () -> String? = nil, file: String = #fileID, function: String = #function,
        line: UInt = #line
    ) {
        guard level >= logLevel else { return }
        emit(
            level: level, message: message(), metadata: metadata(), module: source(), file: file, function: function,
            line: line)
    }

    @usableFromInline
    func emit(
        level: Level, message: Message, metadata: Metadata?, module: String?, file: String, function: String, line: UInt
    ) {
        emit(
            level: level, message: message, metadata: metadata,
            source: LogSink.Source(file: file, function: function, line: line, module: module))
    }

    @inlinable
    public func trace(
        _ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil,
        source: @autoclosure () -> String? = nil, file: String = #fileID, function: String = #function,
        line: UInt = #line
    ) {
        log(
            level: .trace, message(), metadata: metadata(), source: source(), file: file, function: function, line: line
        )
    }

    @inlinable
    public func debug(
        _ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil,
        source: @autoclosure () -> String? = nil, file: String = #fileID, function: String = #function,
        line: UInt = #line
    ) {
        log(
            level: .debug, message(), metadata: metadata(), source: source(), file: file, function: function, line: line
        )
    }

    @inlinable
    public func info(
        _ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil,
        source: @autoclosure () -> String? = nil, file: String = #fileID, function: String = #function,
        line: UInt = #line
    ) {
        log(level: .info, message(), metadata: metadata(), source: source(), file: file, function: function, line: line)
    }

    @inlinable
    public func notice(
        _ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil,
        source: @autoclosure () -> String? = nil, file: String = #fileID, function: String = #function,
        line: UInt = #line
    ) {
        log(
            level: .notice, message(), metadata: metadata(), source: source(), file: file, function: function,
            line: line)
    }

    @inlinable
    public func warning(
        _ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil,
        source: @autoclosure () -> String? = nil, file: String = #fileID, function: String = #function,
        line: UInt = #line
    ) {
        log(
            level: .warning, message(), metadata: metadata(), source: source(), file: file, function: function,
            line: line)
    }

    @inlinable
    public func error(
        _ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil,
        source: @autoclosure () -> String? = nil, file: String = #fileID, function: String = #function,
        line: UInt = #line
    ) {
        log(
            level: .error, message(), metadata: metadata(), source: source(), file: file, function: function, line: line
        )
    }

    @inlinable
    public func critical(
        _ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil,
        source: @autoclosure () -> String? = nil, file: String = #fileID, function: String = #function,
        line: UInt = #line
    ) {
        log(
            level: .critical, message(), metadata: metadata(), source: source(), file: file, function: function,
            line: line)
    }

    /// Metadata computed when a line is written, as swift-log's `Logger.MetadataProvider`.
    public struct MetadataProvider: Sendable {
        let provide: @Sendable () -> Metadata

        public init(_ provide: @escaping @Sendable () -> Metadata) { self.provide = provide }

        public func get() -> Metadata { provide() }

        /// One provider for several; a later one wins a key. Nil for none.
        public static func multiplex(_ providers: [MetadataProvider]) -> MetadataProvider? {
            guard !providers.isEmpty else { return nil }
            return MetadataProvider {
                providers.reduce(into: Metadata()) { merged, provider in merged.merge(provider.get()) { $1 } }
            }
        }
    }
}
