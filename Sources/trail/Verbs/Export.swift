import TrailCommandLine
import TrailTrace

let exportVerb = Verb(
    name: "export",
    summary: "Convert traces for other viewers (Chrome trace JSON for Perfetto and chrome://tracing).",
    usage: "--chrome \(traceArgument) > trace.json",
    details: traceDetails + " Each process is its own track group, lined up by wall-clock time.",
    options: [.flag("--chrome", help: "Chrome trace event JSON (the default).")],
    run: { arguments in
        let files = try openTraces(arguments)
        let output = TextOutput(descriptor: 1)
        var chrome = ChromeTrace(output: output, files: files)
        CallStream().read(files, into: &chrome)
        reportGaps(files)
        chrome.finish()
        output.flush()
        return 0
    })
