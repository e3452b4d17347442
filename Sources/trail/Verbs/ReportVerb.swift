import TrailCommandLine
import TrailTrace

let reportVerb = Verb(
    name: "report",
    summary: "Rank the functions of one or more traces by time, or report the last crash.",
    usage:
        "[--sort KEY[,KEY]...] [--exclude GLOB] [--by-process | --by-value FUNC] \(traceArgument)\n       trail report --diff OLD [--threshold TIME|N%] NEW\n       trail report --crash [LOGDIR|LOG] [--json] [--no-sanitize] [--debug-dir DIR]... [-o FILE]",
    details: traceDetails + """
         Several processes are added up by function, or shown apart with --by-process (a PID column).

        With --diff OLD NEW (each a trace or a folder of them): per function, total time, self time and calls in
        each and the change, the largest regression first.

        With --crash, or given a log file or a folder with no traces in it: a Markdown (or --json) report of the last crash, for a
        user to attach: the symbolized stack, the breadcrumbs, the last 200 log lines before the crash, the app,
        its build ID, the system and the time. Home folders and the user name are masked unless --no-sanitize.
        The log folder defaults to the current folder.
        """,
    options: [
        .value(
            "--sort", "-s", placeholder: "KEYS",
            help:
                "total (default), self, calls, average, minimum, maximum or name; uftrace's call, avg, min, max, func too; comma-separated, the next breaking ties."
        ),
        .value(
            "--exclude", "-N", placeholder: "GLOB", help: "Leave out the functions matching GLOB (comma-separated)."),
        .flag("--by-process", help: "One row per function and process, with a PID column."),
        .value("--diff", placeholder: "OLD", help: "Compare OLD (a trace or folder) with the traces given."),
        .value(
            "--threshold", placeholder: "TIME|N%",
            help: "With --diff: only functions whose total time changed by TIME (10us) or N% (10%) or more."),
        .value(
            "--by-value", placeholder: "FUNC",
            help:
                "The calls of FUNC (a glob; App.Type.name, Type.name or name) grouped by their recorded arguments (a build with --values), most total time first."
        ),
        .flag("--crash", help: "Report the last crash instead of a trace."),
        .flag("--json", help: "Crash report as JSON."),
        .flag("--no-sanitize", help: "Keep home folders and the user name in the crash report."),
        .value(
            "--debug-dir", placeholder: "DIR", help: "A folder with .build-id/xx/rest.debug files (repeatable).",
            repeatable: true),
        .value(
            "--output", "-o", placeholder: "FILE",
            help: "Write the crash report to FILE (atomically) instead of standard output (-: standard output)."),
    ] + terminalOptions,
    conflicts: [
        ["diff", "crash"], ["diff", "by-process"], ["by-value", "by-process"], ["by-value", "crash"],
        ["by-value", "sort"], ["by-value", "diff"],
    ],
    needs: ["threshold": ["diff"]],
    run: { arguments in
        if arguments.value("diff") != nil { return try diffReport(arguments) }
        if arguments.has("crash") || (arguments.positionals.first.map(isCrashInput) ?? false) {
            return try crashReport(arguments)
        }
        let keys: [Profile.Order]
        switch Profile.Order.list(arguments.value("sort") ?? "total") {
        case .success(let list): keys = list
        case .failure(let unknown):
            throw UsageError(
                description: "--sort: '\(unknown.key)' is not a key: total, self, calls (call), average (avg), "
                    + "minimum (min), maximum (max) or name (func), or several, comma-separated")
        }
        let files = try openTraces(arguments)
        startPager(arguments)
        if let function = arguments.value("by-value") {
            var groups = ValueGroups(NamePattern(function))
            CallStream().read(files, into: &groups)
            reportGaps(files)
            printOut(groups.render())
            return 0
        }
        var profile = Profile(byProcess: arguments.has("by-process"))
        CallStream().read(files, into: &profile)
        reportGaps(files)
        printOut(profile.render(keys, excluding: arguments.value("exclude").map(NamePattern.init)))
        return 0
    })
