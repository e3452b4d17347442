#if canImport(Glibc)
import Glibc
#endif

/// `trail <verb> ...`: each verb parses its arguments and calls a library.
let verbs: [Verb] = [instrumentVerb, stripVerb, replayVerb, reportVerb, exportVerb, flamegraphVerb, symbolizeVerb]

let overview = """
    trail: build-time function tracing and logging for Swift.

    Usage: trail <verb> [options] [arguments]

    Verbs:
    \(verbs.map { "  \($0.name.padding(toLength: 12, withPad: " ", startingAt: 0))\($0.summary)" }.joined(separator: "\n"))

    Run 'trail <verb> --help' for a verb's options.

    Run-time environment of an instrumented program (see README.md):
      TRAIL_TRACE=off|log|record   off by default; log (or 1): a line per entry and exit; record: a binary trace
      TRAIL_TRACE_FILE=PATH        where record mode writes (default ./<program>.trace, or beside the log)
      TRAIL_TRACE_BUFFER=SIZE      ring per thread (default 32M)
      TRAIL_TRACE_FILTER=GLOBS     trace only these functions and what they call
      TRAIL_TRACE_EXCLUDE=GLOBS    do not trace these functions
      TRAIL_TRACE_DEPTH=N          trace only calls less deep than N
      TRAIL_LOG=console|file|tee   where Trail.bootstrap sends log lines and stderr
      TRAIL_LOG_DIR, TRAIL_LOG_LEVEL, TRAIL_LOG_MAX_SIZE, TRAIL_LOG_MAX_AGE, TRAIL_LOG_MAX_FILES,
      TRAIL_LOG_MAX_TOTAL, TRAIL_LOG_FLUSH_MS, TRAIL_LOG_DURABLE=1, TRAIL_CRASH=0, TRAIL_APP_VERSION
    """

func runMain() -> Int32 {
    let arguments = Array(CommandLine.arguments.dropFirst())
    guard let first = arguments.first, first != "-h", first != "--help", first != "help" else {
        printOut(overview + "\n")
        return arguments.isEmpty ? 2 : 0
    }
    guard let verb = verbs.first(where: { $0.name == first }) else {
        printError("trail: unknown verb '\(first)'. Verbs: \(verbs.map(\.name).joined(separator: ", ")).")
        return 2
    }
    do {
        let parsed = try verb.parse(Array(arguments.dropFirst()))
        if parsed.has("help") {
            printOut(verb.help)
            return 0
        }
        return try verb.run(parsed)
    } catch let error as UsageError {
        printError("trail \(verb.name): \(error.description)")
        return 2
    } catch {
        printError("trail \(verb.name): \(error)")
        return 1
    }
}

/// Writes straight to a file descriptor: no shared `FILE *`, and nothing is lost to buffering at exit.
func writeAll(_ fd: Int32, _ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        if count <= 0 { return }
        bytes = bytes.dropFirst(count)
    }
}

func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
        let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if count < 0, errno == EINTR { continue }
        if count <= 0 { return }
        offset += count
    }
}

/// Standard input, whole.
func readAllStandardInput() -> [UInt8] {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        if count <= 0 { break }
        bytes.append(contentsOf: chunk[0 ..< count])
    }
    return bytes
}

func printOut(_ text: String) { writeAll(1, text) }

func printError(_ text: String) { writeAll(2, text.hasSuffix("\n") ? text : text + "\n") }

exit(runMain())
