// Trail's names, in a file that imports Trail alone: beside swift-log, `Logger` names two types, and the
// module name `Trail` is also its enum's.
import Trail

typealias TrailLevel = Logger.Level
typealias TrailMetadata = Logger.Metadata
typealias TrailMetadataValue = Logger.MetadataValue

enum TrailSink {
    static var defaultLevel: Logger.Level { LogSink.shared.defaultLevel }

    /// Whether lines name their module (JSON lines do; text lines show the file).
    static var namesModules: Bool { LogSink.shared.lineFormat == .json }

    static func write(
        level: Logger.Level, label: String, message: String, metadata: Logger.Metadata,
        module: String?, file: String, function: String, line: UInt
    ) {
        LogSink.shared.write(
            level: level, label: label, message: message, metadata: metadata, module: module,
            file: file, function: function, line: line)
    }
}
