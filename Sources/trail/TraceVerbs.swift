import Foundation
import TrailTrace

private let traceArgument = "[TRACE]"
private let traceDetails = "TRACE defaults to the newest *.trace file in the current folder."

/// The trace named on the command line, or the newest `*.trace` here.
private func loadTree(_ arguments: ParsedArguments) throws -> (TraceFile, CallTree) {
    guard arguments.positionals.count <= 1 else { throw UsageError(description: "give at most one trace file") }
    let path: String
    if let given = arguments.positionals.first {
        path = given
    } else {
        let here = FileManager.default.currentDirectoryPath
        let traces = ((try? FileManager.default.contentsOfDirectory(atPath: here)) ?? []).filter { $0.hasSuffix(".trace") }
        let newest = traces.max { modified($0) < modified($1) }
        guard let newest else { throw UsageError(description: "no *.trace file here; record one with TRAIL_TRACE=record or name it") }
        path = newest
    }
    let trace = try TraceFile(path: path)
    if trace.truncated { printError("trail: \(path) ends early (the process died while writing?); showing what is there") }
    let tree = CallTree(trace)
    if tree.dropped > 0 { printError("trail: \(tree.dropped) records were dropped while recording (buffers full)") }
    return (trace, tree)
}

private func modified(_ path: String) -> Date {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date) ?? .distantPast
}

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

let reportVerb = Verb(
    name: "report",
    summary: "Rank a trace's functions by time, or report the last crash.",
    usage: "[--sort total|self|calls|name] [TRACE]",
    details: traceDetails,
    options: [
        .value("--sort", "-s", placeholder: "KEY", help: "total (default), self, calls or name."),
    ],
    run: { arguments in
        let (_, tree) = try loadTree(arguments)
        let key = arguments.value("sort") ?? "total"
        guard let order = Profile.Order(rawValue: key) else { throw UsageError(description: "--sort: total, self, calls or name") }
        printOut(Profile(tree, order: order).render())
        return 0
    })

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

let flamegraphVerb = Verb(
    name: "flamegraph",
    summary: "Draw a trace as an interactive SVG flame graph.",
    usage: "[--title TEXT] [TRACE] > flame.svg",
    details: traceDetails,
    options: [.value("--title", placeholder: "TEXT", help: "The graph's title.")],
    run: { arguments in
        let (trace, tree) = try loadTree(arguments)
        let exe = trace.info["exe"].flatMap { $0.split(separator: "/").last.map(String.init) } ?? "trace"
        printOut(FlameGraph.render(tree, title: arguments.value("title") ?? "\(exe) (pid \(trace.pid))"))
        return 0
    })
