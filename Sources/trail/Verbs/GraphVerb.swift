import TrailCommandLine
import TrailTrace
import TrailViews

let graphVerb = Verb(
    name: "graph",
    summary: "Show the backtraces that reach a function and its call graph below, aggregated.",
    usage: "[options] FUNC \(traceArgument)",
    details: """
        FUNC is a function's name as replay prints it (ItemStore.Store.create(name:value:)), or a glob (*, ?,
        comma-separated) naming several, each with a graph of its own. Every call of it is counted: the stacks
        that reached it, each with its hits and time, then what it called, merged by path, with total time,
        self time and (calls), as `uftrace graph` prints them.
        """ + "\n\n" + traceDetails,
    options: [
        .value(
            "--output-fields", "-f", placeholder: "FIELDS",
            help: "The time columns: total, self, or both comma-separated (default total,self)."),
        .value(
            "--depth", "-D", placeholder: "N", help: "Show N levels of the call graph (1: the function alone)."),
    ] + terminalOptions.filter { $0.names.contains("--no-pager") },
    run: { arguments in
        guard let function = arguments.positionals.first else {
            throw UsageError(description: "name the function to graph (see 'trail graph --help')")
        }
        var text = GraphText()
        if let fields = arguments.value("output-fields") {
            text.fields = try fields.split(separator: ",", omittingEmptySubsequences: false).map { word in
                guard let field = GraphText.Field(rawValue: String(word)) else {
                    throw UsageError(description: "--output-fields: total or self, comma-separated, not '\(word)'")
                }
                return field
            }
        }
        if let depth = arguments.value("depth") {
            guard let value = Int(depth), value > 0 else {
                throw UsageError(description: "--depth needs a positive number, not '\(depth)'")
            }
            text.maxDepth = value
        }
        var traces = arguments
        traces.positionals.removeFirst()
        let files = try openTraces(traces)
        startPager(arguments)
        var graph = CallGraph(function: function)
        CallStream().stream(files, into: &graph)
        reportGaps(files)
        guard !graph.graphs.isEmpty else {
            throw VerbFailure("no call of '\(function)' in the trace\(files.count == 1 ? "" : "s") read")
        }
        printOut(text.render(graph))
        return 0
    })
