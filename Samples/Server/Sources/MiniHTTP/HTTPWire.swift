import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reading and writing HTTP/1.1 messages on a socket: just enough for the Sample.
enum HTTPWire {
    /// 127.0.0.1:`port`, for bind and connect.
    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        return address
    }

    static func write(_ socket: Int32, _ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }

    /// What the peer sends until it closes, or until the head and `Content-Length` bytes of body have come.
    static func readMessage(_ socket: Int32) -> (head: [String], body: String)? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            data += buffer[0 ..< count]
            // A message without Content-Length (a GET) ends with its head.
            if let end = headEnd(data), data.count >= end + 4 + (contentLength(data[..<end]) ?? 0) { break }
            if data.count > 1 << 20 { return nil }
        }
        guard let end = headEnd(data) else { return nil }
        let head = String(decoding: data[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        return (head, String(decoding: data[(end + 4)...], as: UTF8.self))
    }

    static func readRequest(_ socket: Int32) -> HTTPRequest? {
        guard let (head, _) = readMessage(socket), let first = head.first else { return nil }
        let parts = first.split(separator: " ")
        guard parts.count == 3 else { return nil }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return HTTPRequest(method: String(parts[0]), path: String(parts[1]), headers: headers)
    }

    static func readResponse(_ socket: Int32) throws -> HTTPResponse {
        guard let (head, body) = readMessage(socket), let first = head.first else {
            throw HTTPError.malformed("no head")
        }
        let parts = first.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw HTTPError.malformed(first) }
        return HTTPResponse(status: status, body: body)
    }

    private static func headEnd(_ data: [UInt8]) -> Int? {
        guard data.count >= 4 else { return nil }
        for index in 0 ... data.count - 4
        where data[index] == 13 && data[index + 1] == 10 && data[index + 2] == 13 && data[index + 3] == 10 {
            return index
        }
        return nil
    }

    private static func contentLength(_ head: ArraySlice<UInt8>) -> Int? {
        for line in String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        where line.lowercased().hasPrefix("content-length:") {
            return Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}
