import TrailCommandLine
import TrailTelemetry

let followDetails = """
    --follow: keep reading traces while their processes write them (a folder's new traces too) and send each \
    span once its call has ended, within about a second. A cursor (--cursor, else .trail-follow.json in the \
    first folder) records what the receiver took, so a restart goes on without repeating or skipping a span. A \
    receiver that is down is waited for with backoff: the trace files hold what is not sent yet, and memory stays \
    bounded. SIGINT or SIGTERM sends what is pending, saves the cursor and stops.
    """

/// `trail export --otlp --follow`: a sidecar that ships spans as calls end (`SpanFollow`).
func followSpans(_ arguments: ParsedArguments) throws -> Int32 {
    guard arguments.value("output") == nil else {
        throw UsageError(
            description:
                "--follow sends to an OTLP endpoint (--endpoint or OTEL_EXPORTER_OTLP_ENDPOINT) or standard output, not to a file"
        )
    }
    let destination = try OTLPDestination(arguments, signal: .traces)
    let roots = arguments.positionals.isEmpty ? ["trail-traces"] : arguments.positionals
    var export = TraceExport()
    export.serviceName = destination.settings.serviceName
    export.resourceAttributes = destination.settings.resourceAttributes
    var follow = try destination.follower {
        try SpanFollow(
            output: destination.followOutput, roots: roots,
            cursorPath: arguments.value("cursor") ?? SpanFollow.defaultCursor(roots), export: export)
    }
    destination.beginFollowing(roots.joined(separator: ", "), cursor: follow.cursor.path)
    try follow.run()
    return 0
}
