/// What an export is configured with: command-line options first, then the variables every OpenTelemetry
/// exporter reads. A malformed value is an error naming the variable and the value.
public struct ExporterSettings: Sendable {
    /// nil: write requests to a file or standard output.
    public var endpoint: OTLPEndpoint?
    public var headers: [(String, String)] = []
    /// Seconds per attempt (OTEL_EXPORTER_OTLP_TIMEOUT is in milliseconds; 10 s by default).
    public var timeout = 10.0
    /// `--service`, else OTEL_SERVICE_NAME, else `service.name` in OTEL_RESOURCE_ATTRIBUTES; nil: the app's name.
    public var serviceName: String?
    public var resourceAttributes: [Attribute] = []
    /// OTEL_EXPORTER_OTLP_PROTOCOL (`--protocol`): http/protobuf by default, as the specification says.
    public var encoding = OTLPEncoding.protobuf
    /// OTEL_EXPORTER_OTLP_COMPRESSION (`--compression`): none by default, as the specification says.
    public var compression = OTLPCompression.none

    /// `endpointOption` is `--endpoint` (a base URL, or a full one ending in the signal's path); `toFile`
    /// (`-o`) writes a file whatever the environment says.
    public static func resolve(
        signal: TelemetrySignal, endpointOption: String?, serviceOption: String?, toFile: Bool,
        environment: [String: String]
    ) throws(ExportFailure) -> ExporterSettings {
        var settings = ExporterSettings()
        let signalPrefix = "OTEL_EXPORTER_OTLP_\(signal.rawValue.uppercased())_"
        func value(_ name: String) -> (name: String, value: String)? {
            guard let text = environment[name]?.trimmingSpaces, !text.isEmpty else { return nil }
            return (name, String(text))
        }
        func named<T>(_ variable: (name: String, value: String), _ body: (String) throws(ExportFailure) -> T)
            throws(ExportFailure) -> T
        {
            do { return try body(variable.value) } catch {
                throw ExportFailure("\(variable.name)=\(variable.value): \(error.description)")
            }
        }
        if let option = endpointOption {
            settings.endpoint = try OTLPEndpoint.option(option, signal: signal)
        } else if !toFile {
            if let full = value(signalPrefix + "ENDPOINT") {
                settings.endpoint = try named(full) { text throws(ExportFailure) in try OTLPEndpoint(url: text) }
            } else if let base = value("OTEL_EXPORTER_OTLP_ENDPOINT") {
                settings.endpoint = try named(base) { text throws(ExportFailure) in
                    try OTLPEndpoint.base(text, signal: signal)
                }
            }
        }
        // The signal's own variable wins over the general one.
        for name in ["OTEL_EXPORTER_OTLP_PROTOCOL", signalPrefix + "PROTOCOL"] {
            guard let variable = value(name) else { continue }
            guard let encoding = OTLPEncoding(rawValue: variable.value) else {
                throw ExportFailure(
                    "\(name)=\(variable.value): swift-trail sends OTLP over HTTP, as http/protobuf (the default) "
                        + "or http/json; it does not speak \(variable.value)")
            }
            settings.encoding = encoding
        }
        for name in ["OTEL_EXPORTER_OTLP_COMPRESSION", signalPrefix + "COMPRESSION"] {
            guard let variable = value(name) else { continue }
            guard let compression = OTLPCompression(rawValue: variable.value) else {
                throw ExportFailure("\(name)=\(variable.value): give gzip or none")
            }
            settings.compression = compression
        }
        for name in ["OTEL_EXPORTER_OTLP_TIMEOUT", signalPrefix + "TIMEOUT"] {
            guard let variable = value(name) else { continue }
            guard let milliseconds = Int(variable.value), milliseconds > 0 else {
                throw ExportFailure("\(name)=\(variable.value): not a timeout in milliseconds (a whole number above 0)")
            }
            settings.timeout = Double(milliseconds) / 1000
        }
        for name in ["OTEL_EXPORTER_OTLP_HEADERS", signalPrefix + "HEADERS"] {
            guard let variable = value(name) else { continue }
            for (key, text) in try named(variable, parseKeyValueList) {
                guard key.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != 58 }),
                    !text.utf8.contains(where: { $0 == 10 || $0 == 13 })
                else {
                    throw ExportFailure("\(name)=\(variable.value): '\(key)' cannot be an HTTP header")
                }
                settings.headers.removeAll { $0.0.lowercased() == key.lowercased() }
                settings.headers.append((key, text))
            }
        }
        if let variable = value("OTEL_RESOURCE_ATTRIBUTES") {
            settings.resourceAttributes = try named(variable, parseKeyValueList).map { Attribute($0.0, $0.1) }
        }
        settings.serviceName =
            serviceOption ?? value("OTEL_SERVICE_NAME")?.value
            ?? settings.resourceAttributes.last { $0.key == "service.name" }.flatMap {
                if case .string(let name) = $0.value { name } else { nil }
            }
        return settings
    }
}

/// `key1=value1,key2=value2` as the OpenTelemetry environment writes it: spaces around entries trimmed,
/// keys and values percent-decoded.
func parseKeyValueList(_ text: String) throws(ExportFailure) -> [(String, String)] {
    var pairs: [(String, String)] = []
    for entry in text.split(separator: ",", omittingEmptySubsequences: false) {
        let trimmed = entry.trimmingSpaces
        if trimmed.isEmpty { continue }
        guard let equals = trimmed.firstIndex(of: "=") else { throw ExportFailure("'\(trimmed)' is not key=value") }
        guard let key = percentDecoded(trimmed[..<equals].trimmingSpaces), !key.isEmpty,
            let value = percentDecoded(trimmed[trimmed.index(after: equals)...].trimmingSpaces)
        else {
            throw ExportFailure("'\(trimmed)' has an empty key or a bad %-escape")
        }
        pairs.append((key, value))
    }
    return pairs
}

/// nil for a `%` not followed by two hex digits, or bytes that are not UTF-8.
func percentDecoded(_ text: Substring) -> String? {
    var bytes: [UInt8] = []
    var iterator = Array(text.utf8).makeIterator()
    while let byte = iterator.next() {
        guard byte == 37 else {
            bytes.append(byte)
            continue
        }
        guard let high = iterator.next(), let low = iterator.next(),
            let decoded = hexBytes(String(decoding: [high, low], as: UTF8.self))
        else {
            return nil
        }
        bytes += decoded
    }
    return String(validating: bytes, as: UTF8.self)
}
