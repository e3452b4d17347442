import Foundation
import Logging
import MiniHTTP
import Trail

/// `demo`: this program again as a server child, four requests from here, then the child stopped.
enum Demo {
    static func run(logDirectory: String) throws {
        let server = Process()
        server.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        server.arguments = ["--log-dir", logDirectory, "serve"]
        let output = Pipe()
        server.standardOutput = output
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw HTTPError.malformed("the server ended before it listened") }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard
            let port = text.split(separator: " ").last.flatMap({
                UInt16($0.trimmingCharacters(in: .whitespacesAndNewlines))
            })
        else {
            throw HTTPError.malformed(text)
        }
        let client = HTTPClient(port: port)
        for path in ["/health", "/items/7", "/items/12", "/nowhere"] {
            let response = try client.get(path)
            print("GET \(path): \(response.status) \(response.body)")
        }
        print("the log of both processes is in \(logDirectory)")
    }
}

/// `flood`: many swift-log lines from many threads at once, as a busy server writes them.
enum Flood {
    static func run(threads: Int, lines: Int) {
        let group = DispatchGroup()
        for thread in 0 ..< threads {
            group.enter()
            Thread.detachNewThread {
                var logger = Logging.Logger(label: "flood")
                logger[metadataKey: "thread"] = "\(thread)"
                for line in 0 ..< lines {
                    logger.info("line \(line)", metadata: ["n": "\(thread * lines + line)"])
                }
                group.leave()
            }
        }
        group.wait()
        print("wrote \(threads * lines) lines from \(threads) threads")
    }
}
