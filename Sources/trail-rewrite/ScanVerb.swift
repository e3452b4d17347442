import TrailCommandLine
import TrailDriver
import TrailRewriter

let scanVerb = Verb(
    name: "scan",
    summary: ForwardedVerbs.scan.summary,
    usage: "--output FILE [PATH...]",
    details: """
        The build plugin rewrites each file in a command of its own; this command gives each of them what the
        whole target declares. FILE is rewritten only when the list changes, so that an edit which declares
        nothing new re-instruments only the edited file. With no PATH the list is empty.
        """,
    options: [
        .value("--output", "-o", placeholder: "FILE", help: "Where the list goes."),
        .value(
            "--exclude", placeholder: "GLOB", help: "Skip files or folders matching GLOB (repeatable).",
            repeatable: true),
    ],
    run: { arguments in
        guard let output = arguments.value("output") else { throw UsageError(description: "--output FILE is required") }
        try reportingInputErrors { () throws(SourceError) in
            let files = try SourceFiles.collect(arguments.positionals, excludes: arguments.all("exclude"), module: nil)
            try Declarations.scan(files.map(\.path), jobs: BatchOptions.defaultJobs).write(to: output)
        }
        return 0
    })
