import Foundation
import TrailCommandLine

/// `--color` and `--no-pager`, for the viewers that print to a terminal as uftrace does: long output goes through
/// `PAGER` (default `less`, with `LESS=FRX` unless set: it quits when the output fits, and keeps colours).
let terminalOptions: [OptionSpec] = [
    .value("--color", placeholder: "WHEN", help: "auto (default: when writing to a terminal), always or never."),
    .flag("--no-pager", help: "Write to standard output even on a terminal (else through PAGER, default less)."),
]

/// Whether to colour the output, from `--color`.
func colors(_ arguments: ParsedArguments) throws -> Bool {
    switch arguments.value("color") ?? "auto" {
    case "auto": return isatty(1) == 1
    case "always": return true
    case "never": return false
    case let other: throw UsageError(description: "--color: auto, always or never, not '\(other)'")
    }
}

/// The pager standard output goes through until the process exits.
private nonisolated(unsafe) var pagerProcess: pid_t = 0

/// On a terminal, and unless `--no-pager` or `PAGER` is empty or `cat`, points standard output at a pager.
func startPager(_ arguments: ParsedArguments) {
    guard isatty(1) == 1, !arguments.has("no-pager") else { return }
    let command = ProcessInfo.processInfo.environment["PAGER"] ?? "less"
    guard !command.trimmingCharacters(in: .whitespaces).isEmpty, command != "cat" else { return }
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { return }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_adddup2(&actions, fds[0], 0)
    posix_spawn_file_actions_addclose(&actions, fds[1])
    defer { posix_spawn_file_actions_destroy(&actions) }
    var environment = ProcessInfo.processInfo.environment
    if environment["LESS"] == nil { environment["LESS"] = "FRX" }
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    let argv: [UnsafeMutablePointer<CChar>?] = ([String](["/bin/sh", "-c", command])).map { strdup($0) } + [nil]
    defer { for pointer in (envp + argv) { free(pointer) } }
    var pid: pid_t = 0
    guard posix_spawn(&pid, "/bin/sh", &actions, nil, argv, envp) == 0 else {
        close(fds[0])
        close(fds[1])
        return
    }
    close(fds[0])
    dup2(fds[1], 1)
    close(fds[1])
    pagerProcess = pid
    // A reader who quits the pager early ends this process quietly, as with git.
    signal(SIGPIPE, SIG_DFL)
    atexit {
        close(1)
        var status: Int32 = 0
        while waitpid(pagerProcess, &status, 0) < 0 && errno == EINTR {}
    }
}
