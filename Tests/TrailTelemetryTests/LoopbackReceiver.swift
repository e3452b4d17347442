import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A tiny OTLP/HTTP receiver on 127.0.0.1 for tests: one thread, one connection at a time, each request's path
/// and body kept, each answered as `answer` says for its index (0-based).
final class LoopbackReceiver: @unchecked Sendable {
    struct Answer {
        var status = 200
        var headers: [String] = []
        var body = "{}"
    }

    private let listener: Int32
    let port: Int
    private let lock = NSLock()
    struct Received {
        var path: String
        var body: [UInt8]
        var contentType: String?
        var status = 200
        /// Unix time, seconds.
        var time = Date().timeIntervalSince1970
    }

    private var received: [Received] = []
    private let answer: @Sendable (Int) -> Answer
    /// How it treats a connection after an answer: closes it saying so, keeps it for more requests, or closes it
    /// without a word (as a receiver whose idle timeout passed does).
    enum Connections: Sendable { case close, keepAlive, closeSilently }
    private let connectionMode: Connections
    private var accepted = 0

    init(connections: Connections = .close, answer: @escaping @Sendable (Int) -> Answer = { _ in Answer() }) throws {
        self.answer = answer
        self.connectionMode = connections
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 16) == 0
                    && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in serve() }.start()
    }

    private var stopped = false

    var requests: [Received] { lock.withLock { received } }
    /// Connections accepted so far.
    var connections: Int { lock.withLock { accepted } }

    /// Wakes the serving thread, which closes the listener itself: closed here, its descriptor number could be
    /// reused by another test's receiver while this thread still accepts on it, answering that test's requests.
    func stop() {
        lock.withLock { stopped = true }
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func serve() {
        defer { close(listener) }
        while !lock.withLock({ stopped }) {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            lock.withLock { accepted += 1 }
            while handle(connection), connectionMode == .keepAlive {}
            close(connection)
        }
    }

    /// One request and its answer; false when the connection ended instead.
    private func handle(_ connection: Int32) -> Bool {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        var headerEnd: Int?
        var contentLength = 0
        while headerEnd.map({ bytes.count < $0 + contentLength }) ?? true {
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return false }
            bytes += chunk[0 ..< count]
            if headerEnd == nil, let range = Data(bytes).range(of: Data("\r\n\r\n".utf8)) {
                headerEnd = range.upperBound
                let head = String(decoding: bytes[..<range.lowerBound], as: UTF8.self)
                for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
                    contentLength = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
        }
        let head = String(decoding: bytes[..<headerEnd!], as: UTF8.self)
        let path = head.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        let contentType = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-type:") }
            .map { $0.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces) }
        let index = lock.withLock { () -> Int in
            received.append(Received(path: path, body: Array(bytes[headerEnd!...]), contentType: contentType))
            return received.count - 1
        }
        let reply = answer(index)
        lock.withLock { received[index].status = reply.status }
        var text =
            "HTTP/1.1 \(reply.status) Status\r\nContent-Type: application/json\r\nContent-Length: \(reply.body.utf8.count)\r\n"
        for header in reply.headers { text += header + "\r\n" }
        text += (connectionMode == .close ? "Connection: close\r\n" : "") + "\r\n" + reply.body
        let out = Array(text.utf8)
        _ = out.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return true
    }

    /// A port nothing listens on: bound, then closed.
    static func closedPort() -> Int {
        let probe = try? LoopbackReceiver()
        let port = probe?.port ?? 9
        probe?.stop()
        return port
    }
}
