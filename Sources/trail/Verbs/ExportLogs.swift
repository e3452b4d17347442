import Foundation
import TrailCommandLine
import TrailFormat
import TrailSymbolizer
import TrailTelemetry

let otlpLogsDetails = """
    --otlp-logs: without --endpoint or -o, OTEL_EXPORTER_OTLP_LOGS_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT is \
    posted to when set, else the requests go to stdout. OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, \
    OTEL_EXPORTER_OTLP_HEADERS and OTEL_EXPORTER_OTLP_TIMEOUT (ms) are read as every OpenTelemetry exporter reads them.
    """

/// `trail export --otlp-logs`: logs into OTLP log records, to a file, stdout or an OTLP/HTTP receiver.
func exportLogs(_ arguments: ParsedArguments) throws -> Int32 {
    guard !arguments.positionals.isEmpty else {
        throw UsageError(description: "name the log files or log folders to export")
    }
    do {
        let destination = try OTLPDestination(arguments, signal: .logs)
        let settings = destination.settings
        var export = LogExport(serviceName: settings.serviceName, resourceAttributes: settings.resourceAttributes)
        let symbolizer = CrashSymbolizer(debugDirectories: arguments.all("debug-dir"))
        export.stacktrace = { block in CrashOutputFormat.stackText(symbolizer.symbolize(block)) }
        let writer = OTLPWriter<LogRecord>(sink: destination.sink, batchSize: destination.batch)
        let counts = try export.export(arguments.positionals, to: writer)
        let summary = try writer.finish()
        var note =
            "\(counts.records) log records (\(counts.crashes) crash or error blocks, \(counts.rawLines) raw stderr lines)"
        if counts.cutLines > 0 { note += ", \(counts.cutLines) lines longer than 1 MiB cut" }
        printError(
            "trail export: \(note) in \(summary.requests) requests (\(summary.size)\(destination.wire)) to \(destination.name)"
        )
        return 0
    } catch let failure as ExportFailure {
        throw VerbFailure("error: \(failure.description)")
    }
}
