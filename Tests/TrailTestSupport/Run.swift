import Foundation

/// What a finished child process left behind.
public struct ProcessResult: Sendable {
    public var status: Int32
    /// The signal that ended the process, if one did.
    public var signal: Int32?
    public var stdout: String
    public var stderr: String

    /// The shell's view of the exit: 128 + signal for a process killed by one.
    public var shellStatus: Int32 { signal.map { 128 + $0 } ?? status }
}

public struct CommandFailed: Error, CustomStringConvertible {
    public var command: String
    public var result: ProcessResult
    public var description: String {
        "\(command) exited \(result.shellStatus)\n--- stdout\n\(result.stdout.suffix(4000))\n--- stderr\n\(result.stderr.suffix(4000))"
    }
}

/// Runs a program to completion, with its output captured through files (no pipe can fill and block).
@discardableResult
public func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                directory: String? = nil, input: String? = nil, check: Bool = false) throws -> ProcessResult {
    let scratch = Paths.temporaryDirectory("run")
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    let outPath = scratch + "/out", errPath = scratch + "/err", inPath = scratch + "/in"
    for (path, contents) in [(outPath, ""), (errPath, ""), (inPath, input ?? "")] {
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
    }

    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable.contains("/") ? executable : "/usr/bin/env")
    process.arguments = executable.contains("/") ? arguments : [executable] + arguments
    var env = ProcessInfo.processInfo.environment
    // Children start from a clean tracing state unless a test asks otherwise.
    for key in env.keys where key.hasPrefix("TRAIL_") { env[key] = nil }
    env.merge(environment) { $1 }
    process.environment = env
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    process.standardOutput = FileHandle(forWritingAtPath: outPath)
    process.standardError = FileHandle(forWritingAtPath: errPath)
    process.standardInput = FileHandle(forReadingAtPath: inPath)
    try process.run()
    process.waitUntilExit()

    let signaled = process.terminationReason == .uncaughtSignal
    let result = ProcessResult(
        status: signaled ? 0 : process.terminationStatus,
        signal: signaled ? process.terminationStatus : nil,
        stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
        stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    if check, result.shellStatus != 0 {
        throw CommandFailed(command: ([executable] + arguments).joined(separator: " "), result: result)
    }
    return result
}
