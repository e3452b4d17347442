import TrailCommandLine
import TrailTrace

let replayVerb = Verb(
    name: "replay",
    summary: "Print a recorded trace as a call tree with durations.",
    usage: "[options] \(traceArgument)",
    details: traceDetails,
    options: [
        .value("--filter", "-F", placeholder: "GLOB", help: "Only calls matching GLOB (comma-separated), with what they call."),
        .value("--depth", "-D", placeholder: "N", help: "Only N levels below each shown root."),
        .value("--min-duration", "-t", placeholder: "TIME", help: "Hide calls shorter than TIME (e.g. 10us, 1.5ms)."),
        .value("--thread", placeholder: "TID", help: "Only this thread (repeatable).", repeatable: true),
        .flag("--locations", "-l", help: "Show each function's file and line."),
    ],
    run: { arguments in
        let (_, tree) = try loadTree(arguments)
        var options = ReplayOptions()
        options.filter = arguments.value("filter").map(NamePattern.init)
        if let depth = arguments.value("depth") {
            guard let value = Int(depth), value > 0 else { throw UsageError(description: "--depth needs a positive number") }
            options.maxDepth = value
        }
        if let time = arguments.value("min-duration") {
            guard let value = DurationFormat.parse(time) else { throw UsageError(description: "--min-duration: cannot read '\(time)'") }
            options.minDuration = value
        }
        let threads = arguments.all("thread").compactMap { UInt32($0) }
        if !threads.isEmpty { options.threads = Set(threads) }
        options.locations = arguments.has("locations")
        printOut(Replay.render(tree, options))
        return 0
    })
