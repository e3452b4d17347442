import Foundation
import TrailCommandLine
import TrailFormat
import TrailSymbolizer
import TrailTelemetry
import TrailTrace

let otlpTracesDetails = """
    --otlp: traces as OTLP spans, a resource per process. Millions of microsecond calls swamp any backend: \
    --min-duration leaves out shorter calls (with --summary they are counted into the exported call above them: \
    trail.folded.calls, trail.folded.duration_ns), --filter keeps only matching calls and what they call. A \
    process that crashed gets an exception event, with its symbolized stack, on every call it died in: the \
    crash block is looked for in the logs beside the traces and under --log. Without --endpoint or -o, \
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT is posted to when set, else stdout.
    """

/// `trail export --otlp`: traces into OTLP spans, to a file, stdout or an OTLP/HTTP receiver.
func exportSpans(_ arguments: ParsedArguments) throws -> Int32 {
    var export = TraceExport()
    if let time = arguments.value("min-duration") {
        guard let value = DurationFormat.parse(time) else {
            throw UsageError(description: DurationFormat.problem(time, option: "--min-duration"))
        }
        export.minDuration = value
    }
    export.filter = arguments.value("filter").map(NamePattern.init)
    export.fold = arguments.has("summary")
    let files = try openTraces(arguments)
    do {
        let destination = try OTLPDestination(arguments, signal: .traces)
        let settings = destination.settings
        export.serviceName = settings.serviceName
        export.resourceAttributes = settings.resourceAttributes
        if files.contains(where: { !$0.complete }) {
            // Only a process that did not finish tracing can have crashed: look for its block.
            let folders = Set(files.map { ($0.path as NSString).deletingLastPathComponent }).map {
                $0.isEmpty ? "." : $0
            }
            export.crashes = TraceExport.crashBlocks(in: folders + arguments.all("log"))
            let symbolizer = CrashSymbolizer(debugDirectories: arguments.all("debug-dir"))
            export.stacktrace = { block in CrashOutputFormat.stackText(symbolizer.symbolize(block)) }
        }
        let writer = OTLPWriter<Span>(sink: destination.sink, batchSize: destination.batch)
        let counts = try export.export(files, to: writer)
        let summary = try writer.finish()
        reportGaps(files)
        var note = "\(counts.spans) spans from \(counts.processes) processes"
        if counts.leftOut > 0 {
            note += " (\(counts.leftOut) shorter calls \(export.fold ? "folded into their parents" : "left out"))"
        }
        if counts.crashed > 0 { note += ", \(counts.crashed) crashed" }
        printError(
            "trail export: \(note) in \(summary.requests) requests (\(summary.size)\(destination.wire)) to \(destination.name)"
        )
        if counts.spans > 1_000_000, arguments.value("min-duration") == nil {
            // A test suite's trace makes millions of microsecond spans: gigabytes that no backend wants.
            printError(
                "trail export: most of so many spans are short calls; --min-duration 100us --summary exports the "
                    + "slower ones and counts the rest into them")
        }
        return 0
    } catch let failure as ExportFailure {
        throw VerbFailure("error: \(failure.description)")
    }
}
