/// An OTLP/HTTP endpoint: plain `http://` only (no TLS here; a local Collector can forward with TLS).
public struct OTLPEndpoint: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    /// With the query, if any: what the request line names.
    public var path: String

    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "http://\(shownHost):\(port)\(path)"
    }

    /// A full URL (`OTLP_EXPORTER_OTLP_TRACES_ENDPOINT`): used as it is, `/` when it has no path.
    public init(url: String) throws(ExportFailure) {
        let lowered = url.lowercased()
        if lowered.hasPrefix("https://") {
            throw ExportFailure(
                "\(url): https is not supported (swift-trail sends plain HTTP/1.1); "
                    + "send to a Collector over http:// and let it forward with TLS")
        }
        guard lowered.hasPrefix("http://") else { throw ExportFailure("\(url) is not an http:// URL") }
        let rest = url.dropFirst("http://".count)
        let slash = rest.firstIndex(of: "/") ?? rest.firstIndex(of: "?") ?? rest.endIndex
        let authority = rest[..<slash]
        path = slash == rest.endIndex ? "/" : (rest[slash] == "?" ? "/" : "") + String(rest[slash...])
        var hostPart = Substring(authority)
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw ExportFailure("\(url): unclosed [ in the host")
            }
            hostPart = authority[authority.index(after: authority.startIndex) ..< close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") {
                portPart = after.dropFirst()
            } else if !after.isEmpty {
                throw ExportFailure("\(url): unexpected text after the host")
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        guard !hostPart.isEmpty, !hostPart.contains("@") else { throw ExportFailure("\(url) names no host") }
        host = String(hostPart)
        if let portPart {
            guard let number = Int(portPart), (1 ... 65535).contains(number) else {
                throw ExportFailure("\(url): the port '\(portPart)' is not a number from 1 to 65535")
            }
            port = number
        } else {
            port = 80
        }
    }

    /// A base URL (`OTEL_EXPORTER_OTLP_ENDPOINT`): the signal's path (`/v1/traces`) appended to its path.
    public static func base(_ url: String, signal: TelemetrySignal) throws(ExportFailure) -> OTLPEndpoint {
        var endpoint = try OTLPEndpoint(url: url)
        endpoint.path = (endpoint.path.hasSuffix("/") ? String(endpoint.path.dropLast()) : endpoint.path) + signal.path
        return endpoint
    }

    /// `--endpoint`: a base URL, unless it already ends in the signal's path.
    public static func option(_ url: String, signal: TelemetrySignal) throws(ExportFailure) -> OTLPEndpoint {
        let full = try OTLPEndpoint(url: url)
        return full.path.hasSuffix(signal.path) ? full : try base(url, signal: signal)
    }
}
