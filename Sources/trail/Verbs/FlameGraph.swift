import TrailCommandLine
import TrailTrace

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
