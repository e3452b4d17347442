import Foundation
import TrailCommandLine
import TrailDriver
import TrailRewriter

let instrumentVerb = Verb(
    name: "instrument",
    summary: ForwardedVerbs.instrument.summary,
    usage: "[--in-place | --output DIR | --output-file FILE | --dry-run] [options] PATH...",
    details: """
        Folders are searched for .swift files. Each function-like body gets, on the line of its opening
        brace, `Trail.enter("Module.Type.name(x:) @ Module/File.swift:LINE"); defer { Trail.exit() };` (a body
        that is one value returns `value ~>| Trail.TypedExit<ResultType>()` instead of the defer), and the file gets
        `import enum Trail.Trail; import TrailExit`, all inside /*<trail*/ ... /*trail>*/ markers: no line moves, and
        'trail strip' removes exactly that. With --line-directive, code after a brace on its line moves to a
        line of its own, put back at its line and column by #sourceLocation. Instrumenting an instrumented file changes nothing.
        Skipped: @inlinable, @_alwaysEmitIntoClient, @_transparent, @backDeployed and result-builder bodies
        (attributes, witnesses of builder requirements, bodies that only compile with a builder),
        declarations after a '// trail:ignore' comment, and files containing '// trail:ignore-file'.
        With a single file and no destination, the result is printed.
        """,
    options: pathOptions + [
        .flag(
            "--closures",
            help: "Also trace closures (off by default; one-statement closures only with a full signature)."),
        .flag(
            "--values",
            help: "Also record each call's arguments, results and errors (Docs/trace-format.md, values)."),
        .flag("--inlinable", help: "Also trace @inlinable and @_alwaysEmitIntoClient bodies (needs a public import)."),
        .value(
            "--module", "-m", placeholder: "NAME", help: "Module name in trace names (default: from Sources/<Module>/)."
        ),
        .value(
            "--builder", placeholder: "ATTR", help: "Another result-builder attribute to skip (repeatable).",
            repeatable: true),
        .value(
            "--never", placeholder: "NAME", help: "A function returning Never, defined elsewhere (repeatable).",
            repeatable: true),
        .value(
            "--declarations", placeholder: "FILE", help: "Never functions and result builders listed by 'trail scan'."),
        .value(
            "--experimental-feature", placeholder: "NAME",
            help:
                "Parse this experimental syntax, by the compiler's feature name (repeatable; also TRAIL_EXPERIMENTAL_FEATURES=A,B).",
            repeatable: true),
    ],
    run: { arguments in
        var settings = InstrumentSettings(
            closures: arguments.has("closures"), inlinable: arguments.has("inlinable"),
            declared: [
                Declarations(neverReturning: Set(arguments.all("never")), resultBuilders: Set(arguments.all("builder")))
            ])
        let features = InstrumentSettings.features(
            named: arguments.all("experimental-feature"),
            environment: ProcessInfo.processInfo.environment)
        if let unknown = features.unknown.first {
            throw UsageError(
                description:
                    "unknown experimental feature '\(unknown)' (in --experimental-feature or \(InstrumentSettings.featuresVariable))"
            )
        }
        settings.experimentalFeatures = features.features
        settings.values = arguments.has("values")
        if let path = arguments.value("declarations") {
            settings.declared.append(
                try reportingInputErrors { () throws(SourceError) in try Declarations(listAt: path) })
        }
        return try runBatch(arguments, .instrument(settings), verb: "instrument", done: "instrumented")
    })
