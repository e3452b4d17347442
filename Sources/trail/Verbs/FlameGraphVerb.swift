import TrailCommandLine
import TrailTrace

let flamegraphVerb = Verb(
    name: "flamegraph",
    summary: "Draw traces as an interactive SVG flame graph, or print folded stacks.",
    usage: "[--title TEXT] [--folded [--calls]] \(traceArgument) > flame.svg",
    details: traceDetails
        + " Several processes merge into one graph. --folded prints `a;b;c value` lines (self time in microseconds, or calls with --calls) for flamegraph.pl or speedscope.",
    options: [
        .value("--title", placeholder: "TEXT", help: "The graph's title."),
        .flag("--folded", help: "Folded stacks instead of SVG."),
        .flag("--calls", help: "With --folded: count calls instead of time."),
    ],
    conflicts: [["title", "folded"]],
    needs: ["calls": ["folded"]],
    run: { arguments in
        let files = try openTraces(arguments)
        var graph = FlameGraph()
        CallStream().read(files, into: &graph)
        reportGaps(files)
        if arguments.has("folded") {
            printOut(graph.folded(calls: arguments.has("calls")))
            return 0
        }
        let title = files.count == 1 ? "\(files[0].executableName) (pid \(files[0].pid))" : "\(files.count) processes"
        printOut(graph.render(title: arguments.value("title") ?? title))
        return 0
    })
