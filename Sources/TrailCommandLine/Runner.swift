#if canImport(Glibc)
import Glibc
#endif

/// Runs the verb named by the first argument, here or in the executable `forwarded` names; `--help` anywhere
/// shows that verb's help.
public func runVerbs(_ verbs: [Verb], forwarded: [ForwardedVerb] = [], arguments: [String], overview: String) -> Int32 {
    if arguments.first == "--version" || arguments.first == "version" {
        printOut("trail \(TrailVersion.current)\n")
        return 0
    }
    // `trail help VERB` is `trail VERB --help`, as with git and uftrace.
    if arguments.count == 2, arguments[0] == "help" {
        return runVerbs(verbs, forwarded: forwarded, arguments: [arguments[1], "--help"], overview: overview)
    }
    guard let first = arguments.first, first != "-h", first != "--help", first != "help" else {
        printOut(overview + "\n")
        return arguments.isEmpty ? 2 : 0
    }
    if let verb = forwarded.first(where: { $0.name == first }) {
        return forward(verb, arguments: Array(arguments.dropFirst()))
    }
    guard let verb = verbs.first(where: { $0.name == first }) else {
        let names = verbs.map(\.name) + forwarded.map(\.name)
        printError("trail: unknown verb '\(first)'. Verbs: \(names.joined(separator: ", ")).")
        return 2
    }
    return runVerb(verb, arguments: Array(arguments.dropFirst()))
}

/// The release this build belongs to, for `trail --version` and every binary that hands verbs on.
public enum TrailVersion {
    public static let current = "0.28.0"
}

/// Parses `arguments` for one verb and runs it: 2 for a usage error, 1 for a failure. Every error a verb
/// throws is printed here.
public func runVerb(_ verb: Verb, arguments: [String]) -> Int32 {
    do {
        let parsed = try verb.parse(arguments)
        if parsed.has("help") {
            printOut(verb.help)
            return 0
        }
        return try verb.run(parsed)
    } catch let error as UsageError {
        printError("trail \(verb.name): \(error.description)")
        return 2
    } catch let failure as VerbFailure {
        printError(failure.namesInput ? failure.message : "trail \(verb.name): \(failure.message)")
        return failure.status
    } catch {
        printError("trail \(verb.name): \(error)")
        return 1
    }
}

/// Writes straight to a file descriptor: no shared `FILE *`, and nothing is lost to buffering at exit.
public func writeAll(_ fd: Int32, _ text: String) { writeAll(fd, Array(text.utf8)) }

public func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
        let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if count < 0, errno == EINTR { continue }
        if count <= 0 { return }
        offset += count
    }
}

/// Standard input, whole.
public func readAllStandardInput() -> [UInt8] {
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

public func printOut(_ text: String) { writeAll(1, text) }

public func printError(_ text: String) { writeAll(2, text.hasSuffix("\n") ? text : text + "\n") }

extension String {
    /// The string and spaces up to `width` characters, for aligned columns of help text.
    public func padded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
