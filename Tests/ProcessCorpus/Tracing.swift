#if TRAIL_CORPUS_TRACED
import Trail
#endif
#if canImport(Glibc)
import Glibc
#endif

// What the traced build adds: calls recorded, log lines, and Trail.bootstrap when TRAIL_CORPUS_LOG_DIR names a
// log folder. The plain build runs the same bodies and writes the same lines to stderr.

#if TRAIL_CORPUS_TRACED
let logger = Logger(label: "corpus")

func startTrail() {
    guard let folder = getenv("TRAIL_CORPUS_LOG_DIR").map({ String(cString: $0) }) else { return }
    // "default": the folder Trail chooses, under the executable's own name.
    var configuration =
        folder == "default" ? Trail.Configuration() : Trail.Configuration(appName: "corpus", directory: folder)
    configuration.destination = .file
    do { try Trail.bootstrap(configuration) } catch { fputs("corpus: bootstrap failed: \(error)\n", stderr) }
}

/// `body` as a traced call named `name`.
@inline(never) func traced<Result>(_ name: StaticString, _ body: () throws -> Result) rethrows -> Result {
    Trail.enter(name)
    defer { Trail.exit() }
    return try body()
}

func logLine(_ text: String) { logger.info("\(text)") }

/// A line at error level, which the logger writes before the call returns.
func logUrgent(_ text: String) { logger.error("\(text)") }

func finish() { LogSink.shared.flush() }
#else
func startTrail() {}

@inline(never) func traced<Result>(_ name: StaticString, _ body: () throws -> Result) rethrows -> Result {
    try body()
}

func logLine(_ text: String) { fputs("info corpus: \(text)\n", stderr) }

func logUrgent(_ text: String) { fputs("error corpus: \(text)\n", stderr) }

func finish() {}
#endif

/// A line of what the program observes, on stdout, written at once (a fork or exec must not take it twice).
func say(_ text: String) {
    var line = text + "\n"
    line.withUTF8 { bytes in
        var offset = 0
        while offset < bytes.count {
            let count = write(1, bytes.baseAddress! + offset, bytes.count - offset)
            if count <= 0 { return }
            offset += count
        }
    }
}

/// Some traced calls and log lines, and raw bytes on fd 2, as a busy service makes them.
func busy(_ label: String, calls: Int = 200, lines: Int = 50) {
    traced("Corpus.busy(_:) @ Corpus/Tracing.swift:58") {
        for _ in 0 ..< calls { traced("Corpus.leaf() @ Corpus/Tracing.swift:59") { _ = 0 } }
        for line in 0 ..< lines { logLine("\(label) line \(line) with padding to fill the small files sooner") }
        fputs("\(label) raw stderr line\n", stderr)
    }
}
