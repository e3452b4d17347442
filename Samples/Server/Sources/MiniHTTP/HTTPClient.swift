import Foundation
import Logging
import Tracing

#if canImport(Glibc)
import Glibc
#endif

/// A GET over a fresh connection to 127.0.0.1, logging as a client library does.
public struct HTTPClient: Sendable {
    public let port: UInt16
    private let logger = Logger(label: "MiniHTTP.client")

    public init(port: UInt16) { self.port = port }

    /// The status and body of `GET path`, with `headers` sent along: in a client span, whose context goes along
    /// as `traceparent`, as AsyncHTTPClient does it.
    public func get(_ path: String, headers: [String: String] = [:]) throws -> HTTPResponse {
        try withSpan("GET", ofKind: .client) { span in
            span.attributes["http.request.method"] = "GET"
            span.attributes["url.path"] = path
            span.attributes["server.port"] = Int(port)
            var headers = headers
            InstrumentationSystem.instrument.inject(
                ServiceContext.current ?? .topLevel, into: &headers, using: HeaderInjector())
            let response = try send(path, headers: headers)
            span.attributes["http.response.status_code"] = response.status
            if response.status >= 500 { span.setStatus(SpanStatus(code: .error, message: "HTTP \(response.status)")) }
            return response
        }
    }

    private func send(_ path: String, headers: [String: String]) throws -> HTTPResponse {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw HTTPError.system("socket") }
        defer { close(socket) }
        var address = HTTPWire.loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw HTTPError.system("connect 127.0.0.1:\(port)") }
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { request += "\(name): \(value)\r\n" }
        HTTPWire.write(socket, request + "\r\n")
        logger.debug("request sent", metadata: ["path": "\(path)"])
        let response = try HTTPWire.readResponse(socket)
        logger.info("response received", metadata: ["path": "\(path)", "status": "\(response.status)"])
        return response
    }
}

/// Context goes out as request headers (and comes in from them: `HeaderExtractor`).
struct HeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into headers: inout [String: String]) { headers[key] = value }
}

struct HeaderExtractor: Extractor {
    func extract(key: String, from headers: [String: String]) -> String? { headers[key.lowercased()] }
}
