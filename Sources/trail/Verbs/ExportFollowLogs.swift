import TrailCommandLine
import TrailSymbolizer
import TrailTelemetry

let followLogsDetails = """
    --otlp-logs --follow: keep reading log folders (or files) while they are written and send each line within \
    about a second. A rotated file is read to its end under its new name, and a deleted one through the \
    descriptor held; a file cut back to nothing (copytruncate) is read again from its start. The cursor (--cursor, \
    else .trail-follow-logs.json in the first folder) records, per file, the offset the receiver took.
    """

/// `trail export --otlp-logs --follow`: a sidecar that ships log lines as they are written, rotations included
/// (`LogFollow`).
func followLogs(_ arguments: ParsedArguments) throws -> Int32 {
    guard arguments.value("output") == nil else {
        throw UsageError(
            description:
                "--follow sends to an OTLP endpoint (--endpoint or OTEL_EXPORTER_OTLP_LOGS_ENDPOINT) or standard output, not to a file"
        )
    }
    guard !arguments.positionals.isEmpty else {
        throw UsageError(description: "name the log folders or log files to follow")
    }
    let destination = try OTLPDestination(arguments, signal: .logs)
    var export = LogExport(
        serviceName: destination.settings.serviceName, resourceAttributes: destination.settings.resourceAttributes)
    let symbolizer = CrashSymbolizer(debugDirectories: arguments.all("debug-dir"))
    export.stacktrace = { block in CrashOutputFormat.stackText(symbolizer.symbolize(block)) }
    let given = arguments.positionals
    var follow = try destination.follower {
        try LogFollow(
            output: destination.followOutput, given: given,
            cursorPath: arguments.value("cursor") ?? LogFollow.defaultCursor(given), export: export)
    }
    destination.beginFollowing(follow.described, cursor: follow.cursor.path)
    try follow.run()
    return 0
}
