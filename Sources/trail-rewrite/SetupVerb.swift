import TrailCommandLine
import TrailDriver
import TrailRewriter

let setupVerb = Verb(
    name: "setup",
    summary: ForwardedVerbs.setup.summary,
    usage: "[--package DIR] [--target NAME]... [--undo] [--dry-run]",
    details: """
        Edits Package.swift as Docs/tracing.md ("Tracing a package") shows: `let traced = Context.environment["TRAIL"] == "1"`
        after the imports and, in each target, the Trail product in `dependencies:`,
        `sources: traced ? ["_Trail.swift"] : nil` and `plugins: traced ? [.plugin(name: "TrailPlugin", ...)] : []`,
        and writes the placeholder _Trail.swift in the target's folder. Targets: those named, else every regular
        and executable Swift target. The package must already depend on swift-trail. Targets already set up are
        left alone, so a second run changes nothing; --undo removes exactly what setup added. A manifest it cannot
        edit safely (targets built by code, a target with `sources:` or `plugins:` of its own, arguments that are
        not literals) is refused, naming the file and line, with the lines to add by hand. The manifest is written
        through a temporary file and a rename; everything else in it keeps its bytes.
        """,
    options: [
        .value("--package", placeholder: "DIR", help: "The package folder (default: the current folder)."),
        .value(
            "--target", placeholder: "NAME", help: "A target to set up or undo (repeatable; default: all).",
            repeatable: true),
        .flag("--undo", help: "Remove what 'trail setup' added: manifest lines and placeholders."),
        .flag("--dry-run", "-n", help: "Print a unified diff of what would change; write nothing."),
    ],
    run: { arguments in
        guard arguments.positionals.isEmpty else {
            throw UsageError(
                description: "unexpected argument '\(arguments.positionals[0])' (the folder goes after --package)")
        }
        let undo = arguments.has("undo")
        let plan = try reportingInputErrors { () throws(SourceError) in
            try PackageSetup.plan(
                package: arguments.value("package") ?? ".", targets: arguments.all("target"), undo: undo)
        }
        for note in plan.notes { printError(note) }
        if arguments.has("dry-run") {
            printOut(plan.diff())
            return 0
        }
        guard !plan.isEmpty else {
            let already = plan.unchanged.isEmpty ? "" : " (\(plan.unchanged.joined(separator: ", ")) already set up)"
            printError("trail setup: nothing to \(undo ? "undo" : "do")\(already)")
            return 0
        }
        try reportingInputErrors { () throws(SourceError) in try plan.apply() }
        if undo {
            printError(
                "trail setup: removed the setup of \(plan.changed.joined(separator: ", ")) from \(plan.manifest)")
        } else {
            printError(
                "trail setup: set up \(plan.changed.joined(separator: ", ")) in \(plan.manifest)"
                    + (plan.unchanged.isEmpty ? "" : "; \(plan.unchanged.joined(separator: ", ")) already set up")
                    + "\nTraced build: TRAIL=1 swift build --scratch-path .build/trail")
        }
        return 0
    })
