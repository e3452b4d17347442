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
        nothing new re-instruments only the edited file. With no PATH the list is empty. The files of the
        modules the target imports (--dependency) add their result builders, builder requirements and aliases
        of function types, which the target's code may use.
        """,
    options: [
        .value("--output", "-o", placeholder: "FILE", help: "Where the list goes."),
        .value(
            "--exclude", placeholder: "GLOB", help: "Skip files or folders matching GLOB (repeatable).",
            repeatable: true),
        .value(
            "--dependency", placeholder: "PATH",
            help: "A file or folder of a module the target depends on (repeatable).", repeatable: true),
    ],
    run: { arguments in
        guard let output = arguments.value("output") else { throw UsageError(description: "--output FILE is required") }
        try reportingInputErrors { () throws(SourceError) in
            let excludes = arguments.all("exclude")
            let files = try SourceFiles.collect(arguments.positionals, excludes: excludes, module: nil)
            let own = Declarations.scan(files.map(\.path), jobs: BatchOptions.defaultJobs)
            let dependencies = arguments.all("dependency")
            guard !dependencies.isEmpty else { return try own.write(to: output) }
            let imported = try SourceFiles.collect(dependencies, excludes: excludes, module: nil)
            let seen = Declarations.scan(imported.map(\.path), jobs: BatchOptions.defaultJobs).seenFromAnotherModule
            try Declarations(merging: [own, seen]).write(to: output)
        }
        return 0
    })
