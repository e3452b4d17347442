#if canImport(Glibc)
import Glibc
#endif

/// HTTP/1.1 POSTs over one kept-alive TCP connection, with one deadline per request for connecting, sending and
/// reading the answer. A connection the receiver closed while idle is opened again once, at once.
final class HTTPPost {
    struct Response {
        var status: Int
        var reason: String
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    enum Failure: Error {
        /// No connection: the reason (refused, no such host, timed out).
        case unreachable(String)
        /// Connected, but the answer did not come whole in time, or was not HTTP.
        case broken(String)
        /// A kept connection closed before any answer: try a new one.
        case closedEarly
    }

    let endpoint: OTLPEndpoint
    let headers: [(String, String)]
    /// Seconds for the whole exchange.
    let timeout: Double
    /// The open connection, or -1.
    private var fd: Int32 = -1
    /// Connections opened, for tests: one for a whole export when the receiver keeps them.
    private(set) var connections = 0

    init(endpoint: OTLPEndpoint, headers: [(String, String)], timeout: Double) {
        self.endpoint = endpoint
        self.headers = headers
        self.timeout = timeout
    }

    deinit { if fd >= 0 { close(fd) } }

    func send(_ body: [UInt8], contentType: String) throws(Failure) -> Response {
        let deadline = now() + timeout
        var head = "POST \(endpoint.path) HTTP/1.1\r\nHost: \(endpoint.host):\(endpoint.port)\r\n"
        head += "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n"
        head += "User-Agent: \(ProcessResource.sdkName)/\(ProcessResource.sdkVersion)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        let request = Array(head.utf8) + body
        let reused = fd >= 0
        do {
            return try exchange(request, deadline: deadline)
        } catch .closedEarly where reused {
            // The receiver closed the idle connection (its keep-alive timeout): a new one, once.
            return try exchange(request, deadline: deadline)
        } catch .closedEarly {
            throw .broken("the connection closed before an answer came")
        }
    }

    private func exchange(_ request: [UInt8], deadline: Double) throws(Failure) -> Response {
        if fd < 0 {
            fd = try connect(deadline: deadline)
            connections += 1
        }
        guard transmit(fd, request, deadline: deadline) else {
            let code = errno
            let reason = errorText()
            drop()
            if code == EPIPE || code == ECONNRESET { throw .closedEarly }
            throw .broken("sending failed: \(reason)")
        }
        do {
            let (response, keep) = try receive(fd, deadline: deadline)
            if !keep { drop() }
            return response
        } catch {
            drop()
            throw error
        }
    }

    private func drop() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    private func connect(deadline: Double) throws(Failure) -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &list)
        guard status == 0, let list else {
            throw .unreachable("cannot resolve \(endpoint.host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var reason = "no address"
        var cursor: UnsafeMutablePointer<addrinfo>? = list
        while let address = cursor {
            cursor = address.pointee.ai_next
            let fd = socket(
                address.pointee.ai_family,
                address.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
                address.pointee.ai_protocol)
            guard fd >= 0 else { continue }
            if Glibc.connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 { return fd }
            if errno == EINPROGRESS {
                if wait(fd, for: Int16(POLLOUT), deadline: deadline) {
                    var error: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
                    if error == 0 { return fd }
                    reason = String(cString: strerror(error))
                } else {
                    reason = "no connection within \(formatSeconds(timeout))"
                }
            } else {
                reason = errorText()
            }
            close(fd)
        }
        throw .unreachable(reason)
    }

    private func transmit(_ fd: Int32, _ bytes: [UInt8], deadline: Double) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if count > 0 {
                offset += count
            } else if count < 0, errno == EAGAIN || errno == EINTR {
                guard wait(fd, for: Int16(POLLOUT), deadline: deadline) else {
                    errno = ETIMEDOUT
                    return false
                }
            } else {
                return false
            }
        }
        return true
    }

    /// The answer, and whether the connection may carry another request.
    private func receive(_ fd: Int32, deadline: Double) throws(Failure) -> (Response, Bool) {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        var expected: Int?  // header length + Content-Length, once known
        var chunked = false
        var untilClose = false
        while true {
            if let expected, bytes.count >= expected { break }
            if chunked, bytes.count >= 5, bytes.suffix(5).elementsEqual([48, 13, 10, 13, 10]) { break }  // "0\r\n\r\n"
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                bytes += chunk[0 ..< count]
                if expected == nil, !chunked, !untilClose, let end = headerEnd(bytes) {
                    let head = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
                    if let length = contentLength(bytes[..<end]) {
                        expected = end + length
                    } else if head.contains("transfer-encoding: chunked") {
                        chunked = true
                    } else {
                        untilClose = true
                    }
                }
                guard bytes.count <= 8 << 20 else { throw .broken("the answer is larger than 8 MiB") }
            } else if count == 0 {
                if bytes.isEmpty { throw .closedEarly }
                untilClose = true
                break
            } else if errno == EAGAIN || errno == EINTR {
                guard wait(fd, for: Int16(POLLIN), deadline: deadline) else {
                    throw .broken("no whole answer within \(formatSeconds(timeout))")
                }
            } else {
                if bytes.isEmpty, errno == ECONNRESET { throw .closedEarly }
                throw .broken("reading the answer failed: \(errorText())")
            }
        }
        let response = try parse(bytes)
        let keep = !untilClose && response.header("Connection")?.lowercased() != "close"
        return (response, keep)
    }

    private func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0 ... bytes.count - 4
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    private func contentLength(_ head: ArraySlice<UInt8>) -> Int? {
        for line in String(decoding: head, as: UTF8.self).split(separator: "\r\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "content-length" { return Int(parts[1].trimmingSpaces) }
        }
        return nil
    }

    private func parse(_ bytes: [UInt8]) throws(Failure) -> Response {
        guard let end = headerEnd(bytes) else { throw .broken("the answer ended before its headers did") }
        let lines = String(decoding: bytes[..<(end - 4)], as: UTF8.self).split(separator: "\r\n").map(String.init)
        let statusWords = (lines.first ?? "").split(separator: " ", maxSplits: 2)
        guard statusWords.count >= 2, statusWords[0].hasPrefix("HTTP/1."), let status = Int(statusWords[1]) else {
            throw .broken("the answer is not HTTP: \(lines.first ?? "")")
        }
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            let parts = line.split(separator: ":", maxSplits: 1)
            return parts.count == 2 ? (String(parts[0]), String(parts[1].trimmingSpaces)) : nil
        }
        var response = Response(
            status: status, reason: statusWords.count > 2 ? String(statusWords[2]) : "", headers: headers,
            body: Array(bytes[end...]))
        if response.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            response.body = dechunk(response.body)
        }
        return response
    }

    /// `size CRLF data CRLF … 0 CRLF CRLF`.
    private func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            guard let lineEnd = bytes[index...].firstIndex(of: 10) else { break }
            let sizeText = String(decoding: bytes[index ..< lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingSpaces, radix: 16), size > 0 else { break }
            let start = lineEnd + 1
            out += bytes[start ..< min(bytes.count, start + size)]
            index = start + size + 2
        }
        return out
    }

    private func wait(_ fd: Int32, for events: Int16, deadline: Double) -> Bool {
        while true {
            let left = deadline - now()
            guard left > 0 else { return false }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(min(left * 1000 + 1, 1e9)))
            if ready > 0 { return true }
            if ready < 0, errno == EINTR { continue }
            if ready == 0 { continue }
            return false
        }
    }
}

func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func errorText() -> String { String(cString: strerror(errno)) }

func formatSeconds(_ seconds: Double) -> String {
    seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
}

extension StringProtocol {
    var trimmingSpaces: Substring {
        var text = Substring(self)
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return text
    }
}
