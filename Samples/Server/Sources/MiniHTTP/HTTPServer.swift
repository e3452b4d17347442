import Foundation
import Logging
import Tracing

#if canImport(Glibc)
import Glibc
#endif

/// A request as the handler sees it: the method, the path and the headers (names in lower case).
public struct HTTPRequest: Sendable {
    public var method: String
    public var path: String
    public var headers: [String: String]
}

public struct HTTPResponse: Sendable {
    public var status: Int
    public var body: String

    public init(status: Int = 200, body: String) {
        self.status = status
        self.body = body
    }
}

/// An HTTP/1.1 server on the loopback, one thread per connection, one request per connection: small, but it
/// logs as a server library does, through swift-log, with the connection and request in the metadata.
public final class HTTPServer: @unchecked Sendable {
    public let port: UInt16
    private let listener: Int32
    private let logger: Logger
    private let handler: @Sendable (HTTPRequest) -> HTTPResponse

    /// Listens on 127.0.0.1:`port` (0 picks a free port; `port` then says which).
    public init(port: UInt16 = 0, handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws {
        logger = Logger(label: "MiniHTTP.server")
        self.handler = handler
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw HTTPError.system("socket") }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = HTTPWire.loopback(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 64) == 0 else {
            close(listener)
            throw HTTPError.system("bind 127.0.0.1:\(port)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        self.port = UInt16(bigEndian: address.sin_port)
        logger.info("listening", metadata: ["port": "\(self.port)"])
    }

    /// Accepts connections until the process ends, each on a thread of its own.
    public func run() -> Never {
        var connection: UInt64 = 0
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                logger.error("accept failed", metadata: ["errno": "\(errno)"])
                continue
            }
            connection += 1
            let id = connection
            Thread.detachNewThread { [self] in serve(client, connection: id) }
        }
    }

    private func serve(_ socket: Int32, connection: UInt64) {
        defer { close(socket) }
        var logger = self.logger
        logger[metadataKey: "connection"] = "\(connection)"
        guard let request = HTTPWire.readRequest(socket) else {
            logger.warning("malformed request")
            return
        }
        logger[metadataKey: "request"] = "\(request.method) \(request.path)"
        logger.debug("request received", metadata: ["headers": "\(request.headers.count)"])
        // The caller's context from its `traceparent`, and a server span for the request, as Hummingbird's
        // tracing middleware opens one: the handler runs inside it.
        var context = ServiceContext.topLevel
        InstrumentationSystem.instrument.extract(request.headers, into: &context, using: HeaderExtractor())
        let response = withSpan("\(request.method) \(request.path)", context: context, ofKind: .server) { span in
            span.attributes["http.request.method"] = request.method
            span.attributes["url.path"] = request.path
            let response = handler(request)
            span.attributes["http.response.status_code"] = response.status
            if response.status >= 500 { span.setStatus(SpanStatus(code: .error)) }
            return response
        }
        HTTPWire.write(
            socket,
            "HTTP/1.1 \(response.status) \(response.status == 200 ? "OK" : "Error")\r\n"
                + "Content-Length: \(response.body.utf8.count)\r\nConnection: close\r\n\r\n" + response.body)
        logger.info(
            "response sent", metadata: ["status": "\(response.status)", "bytes": "\(response.body.utf8.count)"])
    }
}

public enum HTTPError: Error, CustomStringConvertible {
    case system(String)
    case malformed(String)

    public var description: String {
        switch self {
        case .system(let what): "\(what): \(String(cString: strerror(errno)))"
        case .malformed(let what): "malformed response: \(what)"
        }
    }
}
