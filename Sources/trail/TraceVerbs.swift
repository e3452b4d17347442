import Foundation
import TrailCommandLine
import TrailFormat
import TrailSymbolizer
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
    usage: "[--sort total|self|calls|name] [TRACE]\n       trail report --crash [LOGDIR|LOG] [--json] [--no-sanitize] [--debug-dir DIR]... [-o FILE]",
    details: traceDetails + """

        With --crash, or given a log folder or log file: a Markdown (or --json) report of the last crash, for a
        user to attach: the symbolized stack, the breadcrumbs, the last 200 log lines before the crash, the app,
        its build ID, the system and the time. Home folders and the user name are masked unless --no-sanitize.
        The log folder defaults to the current folder.
        """,
    options: [
        .value("--sort", "-s", placeholder: "KEY", help: "total (default), self, calls or name."),
        .flag("--crash", help: "Report the last crash instead of a trace."),
        .flag("--json", help: "Crash report as JSON."),
        .flag("--no-sanitize", help: "Keep home folders and the user name in the crash report."),
        .value("--debug-dir", placeholder: "DIR", help: "A folder with .build-id/xx/rest.debug files (repeatable).", repeatable: true),
        .value("--output", "-o", placeholder: "FILE", help: "Write the crash report to FILE (atomically) instead of standard output."),
    ],
    run: { arguments in
        if arguments.has("crash") || (arguments.positionals.first.map(isCrashInput) ?? false) {
            return try crashReport(arguments)
        }
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

/// A folder, or a file that is not a trace, is a crash report's input.
private func isCrashInput(_ path: String) -> Bool {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return false }
    if isDirectory.boolValue { return true }
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    return (try? handle.read(upToCount: 8)).map { !TraceLayout.hasMagic($0) } ?? false
}

private func crashReport(_ arguments: ParsedArguments) throws -> Int32 {
    guard arguments.positionals.count <= 1 else { throw UsageError(description: "give one log folder or log file") }
    let input = arguments.positionals.first ?? FileManager.default.currentDirectoryPath
    do {
        let (log, offset) = try CrashReport.locate(input)
        let report = try CrashReport(log: log, offset: offset, symbolizer: CrashSymbolizer(debugDirectories: arguments.all("debug-dir")))
        let sanitized = !arguments.has("no-sanitize")
        let text = arguments.has("json") ? report.json(sanitized: sanitized) : report.markdown(sanitized: sanitized)
        if let output = arguments.value("output") {
            try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
            printError("trail report: wrote \(output)")
        } else {
            printOut(text)
        }
        return 0
    } catch let error as SymbolizerError {
        printError("trail report: error: \(error.description)")
        return 1
    }
}
