import Foundation
import Logging
import MiniHTTP
import Tracing
import Trail
import TrailLogging
import TrailTracing

#if canImport(Glibc)
import Glibc
#endif

// Server: a small HTTP service on the loopback whose library (MiniHTTP) logs through swift-log, as SwiftNIO or
// Hummingbird do. Bootstrapped onto Trail, the library's lines and the application's land in one rotating file.
//
//     Server [--log-dir DIR] serve [--port N]     serve until stopped; prints "listening on PORT"
//     Server [--log-dir DIR] get --port N PATH... one request per path; prints each body
//     Server [--log-dir DIR] demo                 a server child, four requests to it, then stops it
//     Server [--log-dir DIR] spans                the shapes spans are opened in (SpanShapes.swift)
//     Server [--log-dir DIR] flood THREADS LINES  swift-log lines from THREADS threads, LINES each
//     Server bench-log DIR THREADS LINES MAXSIZE trail|swift-log   bench.py's logger benchmark
//     Server bench-spans COUNT trail|noop                           bench.py's span cost

var given = Array(CommandLine.arguments.dropFirst())
var logDirectory =
    ProcessInfo.processInfo.environment["TRAIL_LOG_DIR"] ?? FileManager.default.currentDirectoryPath + "/server-logs"
if given.first == "--log-dir", given.count >= 2 {
    logDirectory = given[1]
    given.removeFirst(2)
}
let arguments = given
if arguments.first == "bench-log" {
    try LogBench.run(arguments)
    exit(0)
}
if arguments.first == "bench-spans" {
    SpanBench.run(arguments)
    exit(0)
}

var configuration = Trail.Configuration(appName: "server", directory: logDirectory)
configuration.destination = .file
try Trail.bootstrap(configuration)
// A metadata provider, as a server adds its request id from a task local: every swift-log line carries it.
LoggingSystem.bootstrap(
    { label, provider in TrailLogHandler(label: label, metadataProvider: provider) },
    metadataProvider: .init { ["service": "server"] })
// swift-distributed-tracing onto Trail: the library's spans are recorded in the trace with the traced calls.
InstrumentationSystem.bootstrap(TrailTracer())
let log = Trail.Logger(label: "app")

func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

switch arguments.first ?? "demo" {
case "serve":
    let server = try HTTPServer(port: UInt16(option("--port") ?? "0") ?? 0) { Routes.handle($0) }
    log.info("serving", metadata: ["port": "\(server.port)", "pid": "\(getpid())"])
    print("listening on \(server.port)")
    fflush(nil)
    server.run()
case "get":
    guard let port = option("--port").flatMap(UInt16.init) else { fatalError("get needs --port N") }
    let client = HTTPClient(port: port)
    for path in arguments.dropFirst(3) {
        do {
            let response = try client.get(path)
            print("\(response.status) \(response.body)")
        } catch {
            log.error("GET failed", metadata: ["path": "\(path)", "error": "\(error)"])
            print("GET \(path) failed: \(error)")  // standard error goes to the log
            exit(1)
        }
    }
case "demo":
    try Demo.run(logDirectory: logDirectory)
case "spans":
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do { try await SpanShapes.run() } catch { print("spans failed: \(error)") }
        done.signal()
    }
    done.wait()
case "flood":
    let threads = Int(arguments.dropFirst().first ?? "8") ?? 8
    let lines = Int(arguments.dropFirst(2).first ?? "12500") ?? 12500
    Flood.run(threads: threads, lines: lines)
default:
    print("unknown command \(arguments[0]); see the comment at the top of main.swift")
    exit(2)
}
LogSink.shared.flush()
