import Foundation
import Logging
import Trail
import TrailLogging

/// `bench-log DIR THREADS LINES MAXSIZE trail|swift-log|swift-log-floor`: the logger benchmark of swift-trail's trail-bench, with
/// the same lines written through Trail's `Logger` or through swift-log onto TrailLogHandler (bench.py, logger).
enum LogBench {
    static func run(_ arguments: [String]) throws {
        guard arguments.count == 6, let threads = Int(arguments[2]), let lines = Int(arguments[3]),
            let size = Int(arguments[4])
        else {
            print("usage: Server bench-log DIR THREADS LINES MAXSIZE trail|swift-log")
            exit(2)
        }
        var configuration = Trail.Configuration(appName: "bench", directory: arguments[1])
        configuration.destination = .file
        configuration.maxFileSize = size
        configuration.maxFiles = 3
        configuration.maxTotalSize = Int.max
        configuration.crashHandler = false
        try Trail.bootstrap(configuration)
        let perThread = lines / threads
        switch arguments[5] {
        case "trail":
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                let log = Trail.Logger(label: "bench")
                for line in 0 ..< perThread {
                    log.info("request \(line) from worker \(thread) served from the cache after a short wait")
                }
            }
        case "swift-log":
            LoggingSystem.bootstrap { TrailLogHandler(label: $0) }
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                let log = Logging.Logger(label: "bench")
                for line in 0 ..< perThread {
                    log.info("request \(line) from worker \(thread) served from the cache after a short wait")
                }
            }
        case "swift-log-floor":
            // What swift-log's API costs alone: a handler that takes each line's text and drops it.
            LoggingSystem.bootstrap { _ in DiscardingHandler() }
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                let log = Logging.Logger(label: "bench")
                for line in 0 ..< perThread {
                    log.info("request \(line) from worker \(thread) served from the cache after a short wait")
                }
            }
        default:
            print("unknown logger \(arguments[5]): trail or swift-log")
            exit(2)
        }
        LogSink.shared.flush()
    }
}

/// Takes a line's text and its source, as any handler must, and writes nothing.
struct DiscardingHandler: LogHandler {
    var logLevel: Logging.Logger.Level = .info
    var metadata: Logging.Logger.Metadata = [:]
    var metadataProvider: Logging.Logger.MetadataProvider?
    subscript(metadataKey key: String) -> Logging.Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        if event.message.description.utf8.count + event.file.utf8.count == 0 { print("empty") }
    }
}
