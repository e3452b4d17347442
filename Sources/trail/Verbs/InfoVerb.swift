import TrailCommandLine
import TrailTrace
import TrailViews

let infoVerb = Verb(
    name: "info",
    summary: "Say what each trace holds: program, host, pid, start, duration, calls, threads, tasks, size.",
    usage: traceArgument,
    details: traceDetails + " Each trace gets a block of `# key : value` lines, as `uftrace info` prints.",
    options: [],
    run: { arguments in
        let files = try openTraces(arguments)
        var summary = TraceSummary()
        CallStream().stream(files, into: &summary)
        printOut(summary.facts.map(InfoText.render).joined(separator: "\n"))
        return 0
    })
