import TrailCommandLine
import TrailFormat
import TrailTrace

#if canImport(Glibc)
import Glibc
#endif

let exportVerb = Verb(
    name: "export",
    summary:
        "Convert traces for other viewers (Chrome trace JSON) or OpenTelemetry (OTLP spans), or logs into OTLP log records.",
    usage:
        "--chrome [--min-duration TIME] [--filter GLOB] [-o FILE] \(traceArgument)\n       trail export --otlp [--min-duration TIME] [--filter GLOB] [--summary] [--endpoint URL] [-o FILE] \(traceArgument)\n       trail export --otlp --follow [--endpoint URL] [--cursor FILE] [FOLDER|TRACE]...\n       trail export --otlp-logs LOG... [--endpoint URL] [--service NAME] [-o FILE]\n       trail export --otlp-logs --follow [--endpoint URL] [--cursor FILE] LOG...",
    details: traceDetails + " --chrome: each process is its own track group, lined up by wall-clock time.\n\n"
        + otlpTracesDetails + "\n\n" + followDetails + "\n\n" + otlpLogsDetails + "\n\n" + followLogsDetails,
    options: [
        .flag("--chrome", help: "Chrome trace event JSON (the default for traces)."),
        .flag(
            "--otlp", help: "Traces as OTLP spans (ExportTraceServiceRequest: protobuf to an endpoint, JSON to a file)."
        ),
        .value(
            "--min-duration", "-t", placeholder: "TIME",
            help: "--otlp, --chrome: leave out calls shorter than TIME (e.g. 100us)."),
        .value(
            "--filter", "-F", placeholder: "GLOB",
            help: "--otlp, --chrome: only calls matching GLOB (comma-separated), with what they call."),
        .flag("--summary", help: "--otlp: count left-out calls into the exported call above them."),
        .value(
            "--log", placeholder: "PATH", help: "--otlp: a log file or folder to find crash blocks in (repeatable).",
            repeatable: true),
        .flag(
            "--otlp-logs",
            help: "Logs (files or log folders; text or JSON lines, rotated files, crash blocks) as OTLP logs."),
        .value(
            "--endpoint", placeholder: "URL",
            help: "Post OTLP/HTTP to this http:// receiver (base URL; /v1/traces or /v1/logs is appended)."),
        .value(
            "--service", placeholder: "NAME",
            help: "service.name (default: OTEL_SERVICE_NAME, else the log's app name)."),
        .value(
            "-o", "--output", placeholder: "FILE",
            help: "Write to FILE (default, or -: stdout): --chrome, the JSON; --otlp, one JSON request per line."),
        .value("--batch", placeholder: "N", help: "Items per request (default 512)."),
        .value(
            "--retries", placeholder: "N", help: "Retries of a failed request (429, 502-504, no connection; default 4)."
        ),
        .value(
            "--protocol", placeholder: "P",
            help: "--endpoint: http/protobuf (default) or http/json (OTEL_EXPORTER_OTLP_PROTOCOL)."),
        .value(
            "--compression", placeholder: "C",
            help: "--endpoint: gzip or none (default; OTEL_EXPORTER_OTLP_COMPRESSION)."),
        .flag(
            "--follow",
            help:
                "--otlp, --otlp-logs: keep reading traces or logs as they are written and send spans as calls end, lines as they come (a sidecar)."
        ),
        .value(
            "--cursor", placeholder: "FILE",
            help:
                "--follow: where what was sent is recorded (default: .trail-follow.json or .trail-follow-logs.json in the folder)."
        ),
        .value(
            "--debug-dir", placeholder: "DIR", help: "Where to look for debug files when symbolizing crash stacks.",
            repeatable: true),
    ],
    conflicts: [["chrome", "otlp", "otlp-logs"], ["min-duration", "otlp-logs"], ["filter", "otlp-logs"]],
    needs: [
        "summary": ["otlp"], "log": ["otlp"], "endpoint": ["otlp", "otlp-logs"], "service": ["otlp", "otlp-logs"],
        "batch": ["otlp", "otlp-logs"], "retries": ["otlp", "otlp-logs"], "debug-dir": ["otlp", "otlp-logs"],
        "protocol": ["otlp", "otlp-logs"], "compression": ["otlp", "otlp-logs"], "follow": ["otlp", "otlp-logs"],
        "cursor": ["follow"],
    ],
    run: { arguments in
        if arguments.has("otlp-logs") {
            return arguments.has("follow") ? try followLogs(arguments) : try exportLogs(arguments)
        }
        if arguments.has("otlp") {
            return arguments.has("follow") ? try followSpans(arguments) : try exportSpans(arguments)
        }
        let files = try openTraces(arguments)
        // A named file is written beside and renamed when whole: a failed export leaves the old one.
        let file = try arguments.outputFile().map { path in
            do { return try AtomicFile(path: path) } catch { throw VerbFailure("error: \(error)") }
        }
        let output = TextOutput(descriptor: file?.descriptor ?? 1)
        let chrome = ChromeTrace(output: output, files: files)
        let minimum = try arguments.value("min-duration").map { time in
            guard let value = DurationFormat.parse(time) else {
                throw UsageError(description: DurationFormat.problem(time, option: "--min-duration"))
            }
            return value
        }
        if minimum != nil || arguments.value("filter") != nil {
            // A whole test run is gigabytes of events, more than Perfetto loads: the calls worth seeing only.
            var selection = SpanSelection(
                beginProcess: chrome.beginProcess, span: { selected, _ in chrome.exit(selected.call, tag: -1) },
                endProcess: chrome.endProcess)
            selection.minDuration = minimum ?? 0
            selection.filter = arguments.value("filter").map(NamePattern.init)
            CallStream().read(files, into: &selection)
        } else {
            var visitor = chrome
            CallStream().read(files, into: &visitor)
        }
        reportGaps(files)
        chrome.finish()
        output.flush()
        if let file {
            if let failure = output.failure {
                file.abandon()
                throw VerbFailure("error: \(file.path): \(String(cString: strerror(failure)))")
            }
            do { try file.commit() } catch { throw VerbFailure("error: \(error)") }
        }
        return 0
    })
