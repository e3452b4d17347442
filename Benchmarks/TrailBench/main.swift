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
default:
    FileHandle.standardError.write(Data(("unknown mode \(mode)\n").utf8))
    exit(2)
}

final class Counter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()
    func next() -> Int { lock.withLock { value += 1; return value } }
}
