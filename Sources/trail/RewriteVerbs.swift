#if canImport(Glibc)
import Glibc
#endif
import TrailCommandLine
import TrailDriver
import TrailRewriter

private let pathOptions: [OptionSpec] = [
    .flag("--in-place", "-i", help: "Rewrite the files where they are (through a temporary file and a rename)."),
    .value("--output", "-o", placeholder: "DIR", help: "Write the results below DIR, mirroring the input tree."),
    .value("--output-file", placeholder: "FILE", help: "Write the result of a single input file to FILE."),
    .flag("--dry-run", "-n", help: "Print a unified diff of what would change; write nothing."),
    .value("--exclude", placeholder: "GLOB", help: "Skip files or folders matching GLOB (repeatable).", repeatable: true),
    .value("--jobs", "-j", placeholder: "N", help: "Files processed at once (default: the number of cores)."),
    .flag("--line-directive", help: "Start each output with #sourceLocation naming the input (for build copies)."),
    .flag("--debug-only", help: "With --line-directive: trace only when DEBUG is set; release compiles the original."),
]

let instrumentVerb = Verb(
    name: "instrument",
    summary: "Insert an entry/exit trace call into every function.",
    usage: "[--in-place | --output DIR | --output-file FILE | --dry-run] [options] PATH...",
    details: """
        Folders are searched for .swift files. Each function-like body gets, on the line of its opening
        brace, `Trail.enter("Module.Type.name(x:) @ Module/File.swift:LINE"); defer { Trail.exit() };`, and
        the file gets `import enum Trail.Trail;`, all inside /*<trail*/ ... /*trail>*/ markers: no line moves, and
        'trail strip' removes exactly that. Instrumenting an instrumented file changes nothing.
        Skipped: @inlinable, @_alwaysEmitIntoClient, @_transparent, @backDeployed and result-builder bodies,
        declarations after a '// trail:ignore' comment, and files containing '// trail:ignore-file'.
        With a single file and no destination, the result is printed.
        """,
    options: pathOptions + [
        .flag("--closures", help: "Also trace closures (off by default; one-statement closures only with a full signature)."),
        .flag("--inlinable", help: "Also trace @inlinable and @_alwaysEmitIntoClient bodies (needs a public import)."),
        .value("--module", "-m", placeholder: "NAME", help: "Module name in trace names (default: from Sources/<Module>/)."),
        .value("--builder", placeholder: "ATTR", help: "Another result-builder attribute to skip (repeatable).", repeatable: true),
        .value("--never", placeholder: "NAME", help: "A function returning Never, defined elsewhere (repeatable).", repeatable: true),
        .value("--declarations", placeholder: "FILE", help: "Never functions and result builders listed by 'trail scan'."),
    ],
    run: { arguments in
        var settings = InstrumentSettings(
            closures: arguments.has("closures"), inlinable: arguments.has("inlinable"),
            declared: [Declarations(neverReturning: Set(arguments.all("never")), resultBuilders: Set(arguments.all("builder")))])
        if let path = arguments.value("declarations") {
            do {
                settings.declared.append(try Declarations(listAt: path))
            } catch {
                printError("\(error)")
                return 1
            }
        }
        return try runBatch(arguments, .instrument(settings), verb: "instrument", done: "instrumented")
    })

let scanVerb = Verb(
    name: "scan",
    summary: "List the Never functions and result builders declared in files, for 'instrument --declarations'.",
    usage: "--output FILE PATH...",
    details: """
        The build plugin rewrites each file in a command of its own; this command gives each of them what the
        whole target declares. FILE is rewritten only when the list changes, so that an edit which declares
        nothing new re-instruments only the edited file.
        """,
    options: [
        .value("--output", "-o", placeholder: "FILE", help: "Where the list goes."),
        .value("--exclude", placeholder: "GLOB", help: "Skip files or folders matching GLOB (repeatable).", repeatable: true),
    ],
    run: { arguments in
        guard let output = arguments.value("output") else { throw UsageError(description: "--output FILE is required") }
        guard !arguments.positionals.isEmpty else { throw UsageError(description: "no PATH given (see 'trail scan --help')") }
        do {
            let files = try SourceFiles.collect(arguments.positionals, excludes: arguments.all("exclude"), module: nil)
            try Declarations.scan(files.map(\.path), jobs: BatchOptions.defaultJobs).write(to: output)
        } catch {
            printError("\(error)")
            return 1
        }
        return 0
    })

let stripVerb = Verb(
    name: "strip",
    summary: "Remove what 'trail instrument' inserted.",
    usage: "[--in-place | --output DIR | --output-file FILE | --dry-run] [options] PATH...",
    details: "Only text inside /*<trail*/ ... /*trail>*/ comment markers is removed; user code is never touched.",
    options: pathOptions,
    run: { arguments in try runBatch(arguments, .strip, verb: "strip", done: "stripped") })

private func runBatch(_ arguments: ParsedArguments, _ operation: BatchOperation, verb: String, done: String) throws -> Int32 {
    guard !arguments.positionals.isEmpty else { throw UsageError(description: "no PATH given (see 'trail \(verb) --help')") }
    var destinations: [BatchOptions.Destination] = []
    if arguments.has("in-place") { destinations.append(.inPlace) }
    if let directory = arguments.value("output") { destinations.append(.directory(directory)) }
    if let file = arguments.value("output-file") { destinations.append(.file(file)) }
    if arguments.has("dry-run") { destinations.append(.dryRun) }
    guard destinations.count <= 1 else {
        throw UsageError(description: "choose one of --in-place, --output, --output-file and --dry-run")
    }

    let files: [SourceFile]
    do {
        files = try SourceFiles.collect(arguments.positionals, excludes: arguments.all("exclude"), module: arguments.value("module"))
    } catch {
        printError(error.description)
        return 1
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
    let options = BatchOptions(destination: destination, jobs: jobs, lineDirective: arguments.has("line-directive"),
                               debugOnly: arguments.has("debug-only"), progress: true)
    let report = Batch.run(files, operation, options,
                           standardOutput: printOut, standardError: { writeAll(2, $0) })
    let quiet = destination == .standardOutput || (destination == .dryRun && isatty(2) == 0)
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
