import Foundation
import SwiftParser
import SwiftSyntax
import Trail
import TrailDriver

/// Workloads for `make bench` that need the package's own code: the parse-only floor for the rewriter.
/// The driver (Benchmarks/bench.py) times these side by side with the tools they are compared to.
let arguments = Array(CommandLine.arguments.dropFirst())
guard let mode = arguments.first else {
    FileHandle.standardError.write(Data(("usage: trail-bench parse DIR | log DIR THREADS LINES MAXSIZE\n").utf8))
    exit(2)
}

switch mode {
case "parse":
    // Parse every .swift file below DIR on all cores, as `trail instrument` does, and nothing else.
    let files = try SourceFiles.collect(Array(arguments.dropFirst()), excludes: [], module: nil)
    let order = largestFirst(files.map(\.path))
    let errors = Counter()
    parallelForEach(files.count, jobs: ProcessInfo.processInfo.activeProcessorCount) { position in
        guard let bytes = try? FileIO.read(files[order[position]].path) else { return }
        bytes.withUnsafeBufferPointer { buffer in
            if Parser.parse(source: buffer).hasError { _ = errors.next() }
        }
    }
    print("parsed \(files.count) files")

case "log":
    // log DIR THREADS LINES MAXSIZE: LINES lines in all, from THREADS threads, into a rotating file.
    let directory = arguments[1]
    let threads = Int(arguments[2])!, lines = Int(arguments[3])!
    var configuration = Trail.Configuration(appName: "bench", directory: directory)
    configuration.destination = .file
    configuration.maxFileSize = Int(arguments[4])!
    configuration.maxFiles = 3
    configuration.maxTotalSize = Int.max
    configuration.crashHandler = false
    try Trail.bootstrap(configuration)
    let perThread = lines / threads
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
        let log = Logger(label: "bench")
        for line in 0 ..< perThread {
            log.info("request \(line) from worker \(thread) served from the cache after a short wait")
        }
    }
    LogSink.shared.flush()

case "log-latency":
    // log-latency DIR KEPT LINES: one thread logs LINES lines into 64 KiB files with KEPT old files already
    // there and kept; prints the longest single call, the 99.9th percentile and the whole run, in microseconds.
    let directory = arguments[1]
    let kept = Int(arguments[2])!, lines = Int(arguments[3])!
    for index in 1 ... kept {
        let fd = open("\(directory)/bench.\(index).log", O_WRONLY | O_CREAT | O_EXCL, 0o600)
        _ = write(fd, "old\n", 4)
        close(fd)
    }
    sync()
    var configuration = Trail.Configuration(appName: "bench", directory: directory)
    configuration.destination = .file
    configuration.maxFileSize = 64 << 10
    configuration.maxFiles = kept
    configuration.maxTotalSize = 1 << 40
    configuration.crashHandler = false
    try Trail.bootstrap(configuration)
    let log = Logger(label: "bench")
    var durations = [UInt64](repeating: 0, count: lines)
    let start = DispatchTime.now().uptimeNanoseconds
    for line in 0 ..< lines {
        let before = DispatchTime.now().uptimeNanoseconds
        // Every 64th line is an error, written before the call returns: those calls meet rotations.
        if line % 64 == 0 {
            log.error("request \(line) failed after a short wait, and the line says so at some length")
        } else {
            log.info("request \(line) served from the cache after a short wait, and the line says so")
        }
        durations[line] = DispatchTime.now().uptimeNanoseconds - before
    }
    LogSink.shared.flush()
    let total = DispatchTime.now().uptimeNanoseconds - start
    durations.sort()
    print("max \(durations.last! / 1000) p999 \(durations[lines * 999 / 1000] / 1000) total \(total / 1000)")
default:
    FileHandle.standardError.write(Data(("unknown mode \(mode)\n").utf8))
    exit(2)
}

final class Counter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()
    func next() -> Int { lock.withLock { value += 1; return value } }
}
