import Foundation
import TrailCommandLine
import TrailTelemetry

/// Where `trail export --otlp` or `--otlp-logs` sends its requests, as `--endpoint`, `-o`, `--batch`,
/// `--retries` and the OTEL_* variables say: an OTLP/HTTP receiver, a file, or stdout.
struct OTLPDestination {
    var settings: ExporterSettings
    let sink: any RequestSink
    /// For the summary line: the endpoint's URL, the file, or "standard output".
    let name: String
    let batch: Int
    /// ", http/protobuf, gzip" for an endpoint; empty for a file.
    var wire: String {
        settings.endpoint == nil
            ? "" : ", \(settings.encoding.rawValue)" + (settings.compression == .gzip ? ", gzip" : "")
    }

    /// For a sidecar (`--follow`): a receiver that is down is waited for, never given up on, and said so.
    func keepTrying() {
        guard let sink = sink as? OTLPHTTPSink else { return }
        sink.persistent = true
        sink.report = { printError("trail export: \($0)") }
    }

    init(_ arguments: ParsedArguments, signal: TelemetrySignal) throws {
        batch = try Self.count(arguments, "batch", default: 512, minimum: 1)
        let retries = try Self.count(arguments, "retries", default: 4, minimum: 0)
        settings = try ExporterSettings.resolve(
            signal: signal, endpointOption: arguments.value("endpoint"),
            serviceOption: arguments.value("service"), toFile: arguments.value("output") != nil,
            environment: ProcessInfo.processInfo.environment)
        if let text = arguments.value("protocol") {
            guard let encoding = OTLPEncoding(rawValue: text) else {
                throw UsageError(description: "--protocol \(text): give http/protobuf or http/json")
            }
            settings.encoding = encoding
        }
        if let text = arguments.value("compression") {
            guard let compression = OTLPCompression(rawValue: text) else {
                throw UsageError(description: "--compression \(text): give gzip or none")
            }
            settings.compression = compression
        }
        if let endpoint = settings.endpoint {
            sink = OTLPHTTPSink(
                endpoint: endpoint, headers: settings.headers, timeout: settings.timeout,
                retry: RetryPolicy(retries: retries),
                encoding: settings.encoding, compression: settings.compression)
            name = endpoint.description
        } else if let output = arguments.outputFile() {
            sink = try OTLPFileSink(path: output)
            name = output
        } else {
            sink = OTLPFileSink()
            name = "standard output"
        }
    }

    private static func count(_ arguments: ParsedArguments, _ name: String, default fallback: Int, minimum: Int) throws
        -> Int
    {
        guard let text = arguments.value(name) else { return fallback }
        guard let number = Int(text), number >= minimum else {
            throw UsageError(description: "--\(name) \(text): give a whole number, at least \(minimum)")
        }
        return number
    }
}
