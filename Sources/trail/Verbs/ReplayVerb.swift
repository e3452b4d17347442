import TrailCommandLine
import TrailTrace

let replayVerb = Verb(
    name: "replay",
    summary: "Print recorded traces as call trees with durations.",
    usage: "[options] \(traceArgument)",
    details: traceDetails
        + " With several processes, a PID column says which each line is from, and a process started by a "
        + "traced call (TRACEPARENT) is shown inside that call.",
    options: [
        .value(
            "--filter", "-F", placeholder: "GLOB",
            help: "Only calls matching GLOB (comma-separated), with what they call."),
        .value(
            "--depth", "-D", placeholder: "N",
            help: "Show N levels of calls from each shown root (1: the roots alone), as uftrace's -D does."),
        .value(
            "--min-duration", "-t", placeholder: "TIME",
            help: "Hide calls shorter than TIME, with its unit (500ns, 10us, 1.5ms, 2s)."),
        .value(
            "--exclude", "-N", placeholder: "GLOB",
            help: "Hide calls matching GLOB (comma-separated), with what they call, as uftrace's -N does."),
        .value("--thread", placeholder: "TID", help: "Only this thread (repeatable).", repeatable: true),
        .flag("--locations", "-l", help: "Show each function's file and line."),
    ] + terminalOptions,
    run: { arguments in
        var options = ReplayOptions()
        options.filter = arguments.value("filter").map(NamePattern.init)
        options.exclude = arguments.value("exclude").map(NamePattern.init)
        if let depth = arguments.value("depth") {
            guard let value = Int(depth), value > 0 else {
                throw UsageError(description: "--depth needs a positive number, not '\(depth)'")
            }
            options.maxDepth = value
        }
        if let time = arguments.value("min-duration") {
            guard let value = DurationFormat.parse(time) else {
                throw UsageError(description: DurationFormat.problem(time, option: "--min-duration"))
            }
            options.minDuration = value
        }
        var threads = Set<UInt32>()
        for tid in arguments.all("thread") {
            guard let value = UInt32(tid) else {
                throw UsageError(description: "--thread needs a thread id, not '\(tid)'")
            }
            threads.insert(value)
        }
        if !threads.isEmpty { options.threads = threads }
        options.locations = arguments.has("locations")
        options.colors = try colors(arguments)
        let files = try openTraces(arguments)
        startPager(arguments)
        options.showPid = files.count > 1
        let output = TextOutput(descriptor: 1)
        // A child process is printed under the call that started it, not again on its own.
        let tree = ProcessTree(files)
        var replay = Replay(options, output: output, tree: tree)
        let stream = CallStream()
        for file in files where !tree.isNested(file) { stream.read([file], into: &replay) }
        reportGaps(files)
        output.flush()
        return 0
    })
