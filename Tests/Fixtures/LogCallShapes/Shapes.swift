// swift-log's call shapes, as server code writes them. IntegrationTests type-checks this file twice: with
// `import Logging` against swift-log, and with that import changed to `import Trail`.
import Logging

struct Service {
    var logger = Logger(label: "service")

    func shapes(file: String = #fileID, function: String = #function, line: UInt = #line) {
        logger.trace("trace")
        logger.debug("debug")
        logger.info("plain")
        logger.notice("notice")
        logger.warning("warning")
        logger.error("error")
        logger.critical("critical")
        logger.info("interpolated \(42) and \("text")", metadata: ["key": "value", "number": "\(1)"])
        logger.log(level: .warning, "leveled")
        logger.log(level: .info, "leveled with metadata", metadata: ["a": "b"])
        logger.debug("with a source", source: "Module")
        logger.error("passed on", file: file, function: function, line: line)
        logger.critical("everything", metadata: ["list": ["b", "c"], "map": ["e": "f"]], source: "Module",
                        file: file, function: function, line: line)
        logger.log(level: .notice, "leveled, everything", metadata: nil, source: nil, file: file, function: function, line: line)

        var copy = logger
        copy[metadataKey: "request"] = "1"
        copy[metadataKey: "number"] = .stringConvertible(42)
        copy.logLevel = .debug
        if copy.logLevel <= .info, copy[metadataKey: "request"] != nil {
            copy.info("configured")
        }
        let levels: [Logger.Level] = Logger.Level.allCases
        _ = levels

        let provider = Logger.MetadataProvider { ["task": "t1"] }
        let provided = Logger(label: "provided", metadataProvider: provider)
        provided.info("with a provider")
        _ = Logger.MetadataProvider.multiplex([provider, provider])
        _ = provider.get()
    }
}
