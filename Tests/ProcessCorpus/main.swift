#if canImport(Glibc)
import Glibc
#endif

/// Small programs that do to their own process what services do after start-up: daemonize, close descriptors,
/// change directory, drop privileges, run under limits, spawn, exec and wait. Built twice from these files:
/// `trail-corpus` links Trail and traces its calls, `trail-corpus-plain` does not (Tests/ProcessCorpusPlain is a
/// link here). `ProcessCorpusTests` runs each program untraced, traced with tracing off, recording and logging,
/// and compares what the program itself observes: its exit, its stdout and the files it writes.
///
/// `trail-corpus PROGRAM WORK [ARGUMENT...]`: WORK is the program's own folder (absolute).
let arguments = CommandLine.arguments
guard arguments.count >= 3, let program = programs[arguments[1]] else {
    let names = programs.keys.sorted().joined(separator: " ")
    fputs("usage: trail-corpus PROGRAM WORK [ARGUMENT...]\nprograms: \(names)\n", stderr)
    exit(2)
}
let work = arguments[2]
startTrail()
program()
finish()
