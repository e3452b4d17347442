import ZooLog

/// `Logger` and `LogSink` come from ZooLog, and Trail has public types of the same names: the inserted
/// import must not make them ambiguous.
enum Logging {
    static func run() {
        let logger = Logger(label: "zoo")
        logger.info("sink: \(describe(.standardOutput))")
    }

    static func describe(_ sink: LogSink) -> String { "\(sink)" }
}
