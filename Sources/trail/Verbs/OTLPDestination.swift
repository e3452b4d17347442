import Foundation
import TrailCommandLine
import TrailTelemetry

/// Where `trail export --otlp` or `--otlp-logs` sends its requests, as `--endpoint`, `-o`, `--batch`,
/// `--retries` and the OTEL_* variables say: an OTLP/HTTP receiver, a file, or stdout.
struct OTLPDestination {
    let settings: ExporterSettings
    let sink: any RequestSink
    /// For the summary line: the endpoint's URL, the file, or "standard output".
    let name: String
    let batch: Int

    init(_ arguments: ParsedArguments, signal: TelemetrySignal) throws {
        batch = try Self.count(arguments, "batch", default: 512, minimum: 1)
        let retries = try Self.count(arguments, "retries", default: 4, minimum: 0)
        settings = try ExporterSettings.resolve(signal: signal, endpointOption: arguments.value("endpoint"),
                                                serviceOption: arguments.value("service"), toFile: arguments.value("output") != nil,
                                                environment: ProcessInfo.processInfo.environment)
        if let endpoint = settings.endpoint {
            sink = OTLPHTTPSink(endpoint: endpoint, headers: settings.headers, timeout: settings.timeout, retry: RetryPolicy(retries: retries))
            name = endpoint.description
        } else if let output = arguments.value("output") {
            sink = try OTLPFileSink(path: output)
            name = output
        } else {
            sink = OTLPFileSink()
            name = "standard output"
        }
    }

    private static func count(_ arguments: ParsedArguments, _ name: String, default fallback: Int, minimum: Int) throws -> Int {
        guard let text = arguments.value(name) else { return fallback }
        guard let number = Int(text), number >= minimum else {
            throw UsageError(description: "--\(name) \(text): give a whole number, at least \(minimum)")
        }
        return number
    }
}
