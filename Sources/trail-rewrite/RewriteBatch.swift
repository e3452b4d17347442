import TrailCommandLine
import TrailDriver
import TrailRewriter

#if canImport(Glibc)
import Glibc
#endif

/// The destinations and file options shared by `instrument` and `strip`.
let pathOptions: [OptionSpec] = [
    .flag("--in-place", "-i", help: "Rewrite the files where they are (through a temporary file and a rename)."),
    .value("--output", "-o", placeholder: "DIR", help: "Write the results below DIR, mirroring the input tree."),
    .value("--output-file", placeholder: "FILE", help: "Write the result of a single input file to FILE."),
    .flag("--dry-run", "-n", help: "Print a unified diff of what would change; write nothing."),
    .value(
        "--exclude", placeholder: "GLOB", help: "Skip files or folders matching GLOB (repeatable).", repeatable: true),
    .value("--jobs", "-j", placeholder: "N", help: "Files processed at once (default: the number of cores)."),
    .flag(
        "--line-directive",
        help: "Start each output with #sourceLocation naming the input (for build copies);"
            + " an output named main.swift names itself, so #fileID has one path."),
    .flag("--debug-only", help: "With --line-directive: trace only when DEBUG is set; release compiles the original."),
]

/// Runs `body`; a problem in an input file (`path:line:col: error: ...`) fails the verb, under the file's name.
func reportingInputErrors<Value>(_ body: () throws(SourceError) -> Value) throws(VerbFailure) -> Value {
    do {
        return try body()
    } catch {
        throw .input(error.description)
    }
}

/// Collects the files, runs the batch and prints its summary: `instrument` and `strip` after their own options.
func runBatch(_ arguments: ParsedArguments, _ operation: BatchOperation, verb: String, done: String) throws -> Int32 {
    guard !arguments.positionals.isEmpty else {
        throw UsageError(description: "no PATH given (see 'trail \(verb) --help')")
    }
    var destinations: [BatchOptions.Destination] = []
    if arguments.has("in-place") { destinations.append(.inPlace) }
    if let directory = arguments.value("output") { destinations.append(.directory(directory)) }
    if let file = arguments.value("output-file") { destinations.append(.file(file)) }
    if arguments.has("dry-run") { destinations.append(.dryRun) }
    guard destinations.count <= 1 else {
        throw UsageError(description: "choose one of --in-place, --output, --output-file and --dry-run")
    }

    let files = try reportingInputErrors { () throws(SourceError) in
        try SourceFiles.collect(
            arguments.positionals, excludes: arguments.all("exclude"), module: arguments.value("module"))
    }
    let destination: BatchOptions.Destination
    if let chosen = destinations.first {
        destination = chosen
    } else if files.count == 1, arguments.positionals.count == 1 {
        destination = .standardOutput
    } else {
        throw UsageError(description: "choose --in-place, --output DIR or --dry-run for more than one file")
    }
    if case .file = destination, files.count != 1 {
        throw UsageError(description: "--output-file takes exactly one input file")
    }
    var jobs = BatchOptions.defaultJobs
    if let text = arguments.value("jobs") {
        guard let value = Int(text), value > 0 else { throw UsageError(description: "--jobs needs a positive number") }
        jobs = value
    }
    let options = BatchOptions(
        destination: destination, jobs: jobs, lineDirective: arguments.has("line-directive"),
        debugOnly: arguments.has("debug-only"), progress: true)
    let report = Batch.run(
        files, operation, options,
        standardOutput: printOut, standardError: { writeAll(2, $0) })
    let quiet =
        destination == .standardOutput || (destination == .dryRun && isatty(2) == 0)
        || (arguments.has("line-directive") && report.errors.isEmpty)
    if !quiet {
        var summary = "trail \(verb): \(done) \(report.changed) file\(report.changed == 1 ? "" : "s")"
        if case .instrument = operation { summary += " (\(report.bodies) bodies)" }
        summary += ", \(report.unchanged) unchanged"
        if report.skipped > 0 { summary += ", \(report.skipped) skipped" }
        if !report.errors.isEmpty { summary += ", \(report.errors.count) failed" }
        printError(summary)
    }
    return report.errors.isEmpty ? 0 : 1
}
