import Foundation
import TrailCommandLine
import TrailTrace

let recordVerb = Verb(
    name: "record",
    summary: "Run a built program with recording on, into a fresh folder, and say where its traces are.",
    usage: "[--output DIR] -- COMMAND [ARGUMENTS]...",
    details: """
        Runs COMMAND with TRAIL_TRACE=record, one trace per process (children included) in a new folder:
        DIR, or trail-traces/<program>-<time>. Then says how many traces were written and how to view them.
        The program must be built traced (TRAIL=1 swift build, 'trail instrument', or 'trail run'); when it
        writes no trace, or traces with no calls, this says so and how to build one that does. The exit status
        is the program's.
        """,
    options: [
        .value("--output", "-o", placeholder: "DIR", help: "The folder for the traces (made; must be new or empty).")
    ],
    run: { arguments in
        guard let program = arguments.positionals.first else {
            throw UsageError(description: "no command to run: trail record [--output DIR] -- COMMAND [ARGUMENTS]...")
        }
        let name = (program as NSString).lastPathComponent
        let folder = try recordFolder(arguments.value("output"), program: name)
        let status = try runRecorded(arguments.positionals, into: folder)
        let written = traces(in: folder)
        let shown =
            folder.hasPrefix(FileManager.default.currentDirectoryPath + "/")
            ? String(folder.dropFirst(FileManager.default.currentDirectoryPath.count + 1)) : folder
        let howToTrace = """
            Build it traced first: add swift-trail to the package and run 'trail setup', then \
            'TRAIL=1 swift build --scratch-path .build/trail' and record .build/trail/debug/\(name); \
            or let 'trail run' (or 'trail test') do all of it with nothing to edit.
            """
        guard !written.isEmpty else {
            printError("trail record: \(name) wrote no trace: it does not hold the Trail runtime. \(howToTrace)")
            rmdir(folder)
            return status == 0 ? 1 : status
        }
        if !written.contains(where: holdsCalls) {
            printError(
                "trail record: \(written.count) trace\(written.count == 1 ? "" : "s") in \(shown), with no calls: "
                    + "\(name) ran no traced function. \(howToTrace)")
            return status
        }
        printError(
            "trail record: \(name) ended with status \(status); \(written.count) trace\(written.count == 1 ? "" : "s") in \(shown)\n"
                + "  trail replay \(shown)    trail report \(shown)")
        return status
    })

/// The folder the traces go to: made new, or an existing empty one.
private func recordFolder(_ given: String?, program: String) throws -> String {
    let here = FileManager.default.currentDirectoryPath
    if let given {
        let path = given.hasPrefix("/") ? given : here + "/" + given
        if mkdir(path, 0o755) != 0 {
            guard errno == EEXIST, ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? ["?"]).isEmpty
            else {
                throw VerbFailure.input(
                    "\(given): cannot be the trace folder: \(errno == EEXIST ? "it is not an empty folder" : String(cString: strerror(errno)))"
                )
            }
        }
        return path
    }
    return try makeFreshFolder(in: here + "/trail-traces", prefix: program + "-").get()
}

/// Runs the command with recording on; its exit status, or 128 + the signal that ended it.
private func runRecorded(_ command: [String], into folder: String) throws -> Int32 {
    var environment = ProcessInfo.processInfo.environment
    environment["TRAIL_TRACE"] = "record"
    environment["TRAIL_TRACE_FILE"] = folder + "/%e-%p.trace"
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    let argv = command.map { strdup($0) } + [nil]
    defer { for pointer in (envp + argv) { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawnp(&pid, command[0], nil, nil, argv, envp)
    guard spawned == 0 else {
        throw VerbFailure.input("\(command[0]): cannot run: \(String(cString: strerror(spawned)))")
    }
    // A Ctrl-C at the terminal reaches the program, whose process group this is; this waits for it to end.
    signal(SIGINT, SIG_IGN)
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    signal(SIGINT, SIG_DFL)
    let signalled = status & 0x7f
    return signalled == 0 ? (status >> 8) & 0xff : 128 + signalled
}

/// Whether a trace holds any call: its chunks are walked until the first records.
private func holdsCalls(_ path: String) -> Bool {
    guard let file = try? TraceFile(path: path) else { return false }
    return file.holdsRecords()
}
