import TrailCommandLine
import TrailTrace

let exportVerb = Verb(
    name: "export",
    summary: "Convert a trace for other viewers (Chrome trace JSON for Perfetto and chrome://tracing).",
    usage: "--chrome [TRACE] > trace.json",
    details: traceDetails,
    options: [.flag("--chrome", help: "Chrome trace event JSON (the only format so far, and the default).")],
    run: { arguments in
        let (trace, tree) = try loadTree(arguments)
        printOut(ChromeTrace.render(tree, trace: trace))
        return 0
    })
