import Foundation

#if canImport(Glibc)
import Glibc
#endif

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

/// Runs a program to completion with posix_spawn and waitpid (Foundation's Process can miss a child's exit
/// when many run at once). Output is captured through files, so no pipe can fill and block the child.
@discardableResult
public func run(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:],
    directory: String? = nil, input: String? = nil, check: Bool = false
) throws -> ProcessResult {
    let scratch = Paths.temporaryDirectory("run")
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    let outPath = scratch + "/out"
    let errPath = scratch + "/err"
    let inPath = scratch + "/in"
    try Data((input ?? "").utf8).write(to: URL(fileURLWithPath: inPath))

    var env = ProcessInfo.processInfo.environment
    // Children start from a clean tracing and logging state unless a test asks otherwise.
    for key in env.keys where key.hasPrefix("TRAIL_") { env[key] = nil }
    env["TMPDIR"] = Paths.childTemporaryDirectory
    env.merge(environment) { $1 }

    // env(1) finds the program on PATH and changes directory (-C) for us.
    let program = "/usr/bin/env"
    let argv = ["env"] + (directory.map { ["-C", $0] } ?? []) + [executable] + arguments
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, inPath, O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

    // Children start as from a shell: no signal blocked (the spawning thread may block some), and the default
    // action for those a test runner may ignore.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    var unblocked = sigset_t()
    sigemptyset(&unblocked)
    posix_spawnattr_setsigmask(&attributes, &unblocked)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

    var pid: pid_t = 0
    let status = withCStrings(argv) { argvPointers in
        withCStrings(env.map { "\($0.key)=\($0.value)" }) { envPointers in
            posix_spawn(&pid, program, &actions, &attributes, argvPointers, envPointers)
        }
    }
    guard status == 0 else {
        throw CommandFailed(
            command: argv.joined(separator: " "),
            result: ProcessResult(status: 127, stdout: "", stderr: String(cString: strerror(status))))
    }
    var waitStatus: Int32 = 0
    while waitpid(pid, &waitStatus, 0) < 0, errno == EINTR {}
    let signaled = (waitStatus & 0x7F) != 0 && (waitStatus & 0x7F) != 0x7F
    let result = ProcessResult(
        status: signaled ? 0 : (waitStatus >> 8) & 0xFF,
        signal: signaled ? waitStatus & 0x7F : nil,
        stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
        stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    if check, result.shellStatus != 0 {
        throw CommandFailed(command: argv.joined(separator: " "), result: result)
    }
    return result
}

private func withCStrings<Result>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result) -> Result {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { for pointer in pointers { free(pointer) } }
    return body(pointers)
}
