#if canImport(Glibc)
import Glibc
#endif

// Programs that make children, exec and wait.

/// `posix_spawn` of `command` under sh, with `actions` if given; its pid.
func spawnShell(_ command: String, actions: UnsafePointer<posix_spawn_file_actions_t>? = nil) -> pid_t {
    var pid: pid_t = 0
    var argv = cStrings(["sh", "-c", command])
    let result = posix_spawn(&pid, "/bin/sh", actions, nil, &argv, environ)
    for pointer in argv { free(pointer) }
    return result == 0 ? pid : -1
}

/// C copies of `words` and the NULL that ends them, for argument vectors.
func cStrings(_ words: [String]) -> [UnsafeMutablePointer<CChar>?] {
    words.map { (word: String) -> UnsafeMutablePointer<CChar>? in strdup(word) } + [nil]
}

/// "exit N" or "signal N" for a wait status.
func describe(_ status: Int32) -> String {
    status & 0x7f == 0 ? "exit \((status >> 8) & 0xff)" : "signal \(status & 0x7f)"
}

/// Children by posix_spawn and fork, then wait(-1) until none is left: exactly the program's own are reaped.
func waitAny() {
    _ = spawnShell("exit 3")
    _ = spawnShell("exit 4")
    if fork() == 0 {
        busy("forked child", calls: 50, lines: 5)
        _exit(5)
    }
    busy("parent", calls: 100, lines: 100)
    var seen: [String] = []
    var status: Int32 = 0
    while wait(&status) > 0 { seen.append(describe(status)) }
    say(
        "reaped \(seen.count): \(seen.sorted().joined(separator: ", ")); then errno \(errno == ECHILD ? "ECHILD" : "\(errno)")"
    )
}

/// fork() without exec, inside a traced call that both processes then leave: the child logs, makes traced calls
/// and ends with _exit; the parent waits.
func forkWithoutExec() {
    busy("before fork")
    let child = traced("Corpus.forking() @ Corpus/Children.swift:40") {
        let child = fork()
        if child == 0 { busy("child", calls: 500, lines: 300) }
        return child
    }
    if child == 0 { _exit(7) }
    busy("parent", calls: 500, lines: 300)
    var status: Int32 = 0
    waitpid(child, &status, 0)
    say("child: \(describe(status))")
}

/// posix_spawn with file actions: the child's stdout and stderr go to the program's own files.
func spawnFileActions() {
    busy("before spawn")
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_addopen(&actions, 1, work + "/child-out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, work + "/child-err.txt", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    let pid = spawnShell("echo to stdout; echo to stderr >&2; exit 6", actions: &actions)
    posix_spawn_file_actions_destroy(&actions)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    say("spawned child: \(describe(status))")
}

/// system() and popen(): their output and status.
func systemAndPopen() {
    busy("before system")
    say("system: \(describe(system("echo from system; exit 2")))")
    guard let pipe = popen("echo from popen; echo second line", "r") else { return say("popen failed") }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), pipe) != nil { say("popen read: \(String(cString: line).dropLast())") }
    say("pclose: \(describe(pclose(pipe)))")
}

/// A child with 50,000 arguments and 5,000 more environment entries, started by posix_spawn.
func hugeArguments() {
    busy("before spawn")
    let executable = "/proc/self/exe"
    var argv = cStrings([executable, "count-arguments", work] + (0 ..< 50_000).map { "argument-\($0)" })
    var environment: [UnsafeMutablePointer<CChar>?] = []
    var entry = environ
    while let variable = entry.pointee {
        environment.append(strdup(variable))
        entry += 1
    }
    for index in 0 ..< 5_000 { environment.append(strdup("CORPUS_EXTRA_\(index)=value \(index)")) }
    environment.append(nil)
    var pid: pid_t = 0
    let result = posix_spawn(&pid, executable, nil, nil, &argv, &environment)
    var status: Int32 = 0
    if result == 0 { waitpid(pid, &status, 0) }
    say("spawn: \(result), child: \(describe(status))")
}

/// What `hugeArguments` started: counts its arguments and the extra environment entries.
func countArguments() {
    var extra = 0
    var entry = environ
    while let variable = entry.pointee {
        if strncmp(variable, "CORPUS_EXTRA_", 13) == 0 { extra += 1 }
        entry += 1
    }
    say("child got \(arguments.count - 3) arguments and \(extra) extra environment entries")
}

/// The argument vector the handler execs with, made before the handler can run.
let handlerArguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
    let vector = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: 4)
    vector[0] = strdup("sh")
    vector[1] = strdup("-c")
    vector[2] = strdup("echo exec from a signal handler")
    vector[3] = nil
    return vector
}()

/// A timer's signal handler execs a shell while the program is busy tracing and logging (POSIX allows execve in
/// a handler). The program must become the shell, never hang.
func execFromSignalHandler() {
    _ = handlerArguments
    signal(SIGALRM) { _ in
        execv("/bin/sh", handlerArguments)
        _exit(9)
    }
    // Error lines are written before the logging call returns: the handler often interrupts a write in progress.
    var timer = itimerval(it_interval: timeval(), it_value: timeval(tv_sec: 0, tv_usec: 30_000))
    setitimer(__itimer_which_t(ITIMER_REAL.rawValue), &timer, nil)
    for round in 0 ..< 100_000 {
        busy("busy \(round)", calls: 50, lines: 2)
        for line in 0 ..< 20 { logUrgent("urgent \(round) \(line)") }
    }
    say("the handler never ran")
}

nonisolated(unsafe) var flooding = true

/// Forks at once and again while another thread floods stderr: a fork must never wait on a full stderr pipe that
/// only a lock the fork holds would let drain.
func forkWhileFlooding() {
    var flooder = pthread_t()
    pthread_create(
        &flooder, nil,
        { _ in
            let chunk = String(
                repeating: "flood flood flood flood flood flood flood flood flood flood flood flood\n", count: 512)
            // At most 64 MiB: enough to keep the pipe full through the forks, bounded on a slow machine.
            for _ in 0 ..< 1800 where flooding { fputs(chunk, stderr) }
            return nil
        }, nil)
    var ended = 0
    for _ in 0 ..< 20 {
        let child = traced("Corpus.forkOnce() @ Corpus/Children.swift:150") { fork() }
        if child == 0 { _exit(0) }
        var status: Int32 = 0
        if waitpid(child, &status, 0) == child { ended += 1 }
    }
    flooding = false
    pthread_join(flooder, nil)
    say("\(ended) children ended")
}

/// A child that holds stderr outlives the program: with Trail logging, a keeper drains the pipe for it.
func outlive() {
    busy("before spawn")
    _ = spawnShell("sleep 1; echo late line from the child >&2")
    busy("after spawn")
    say("spawned")
}

/// Traced calls, then at once an exec of a shell that says so: nothing buffered may be lost with the old image.
func execSoon() {
    busy("before exec", calls: 300, lines: 0)
    var argv = cStrings(["sh", "-c", "echo the shell ran"])
    execv("/bin/sh", &argv)
    say("exec failed: \(errno)")
}

/// An exec that fails, then more output than the bounds hold: stderr must still count against them.
func failedExec() {
    busy("before exec")
    var argv = cStrings(["missing"])
    let result = execv("/nonexistent/missing", &argv)
    say("execv returned \(result), errno \(errno == ENOENT ? "ENOENT" : "\(errno)")")
    for round in 0 ..< 20 { busy("after exec \(round)", calls: 100, lines: 500) }
    let chunk = String(repeating: "x", count: 200) + "\n"
    for _ in 0 ..< 2000 { fputs(chunk, stderr) }
    fflush(stderr)
    // Asked by a test of Trail's own (not in the differential runs, where untraced stderr is a file).
    if getenv("TRAIL_CORPUS_SHOW_STDERR") != nil {
        var info = stat()
        fstat(2, &info)
        say("stderr is \(info.st_mode & S_IFMT == S_IFIFO ? "a pipe" : "not a pipe")")
    }
    say("done")
}

/// A child that holds stderr, then exec of a program that waits for every child it has: it must find that child
/// alone, not a process of Trail's.
func execAfterSpawn() {
    busy("before spawn")
    let child = spawnShell("sleep 0.3; echo late line from the child >&2; exit 8")
    finish()
    var argv = cStrings(["/proc/self/exe", "reap-all", work, String(child)])
    execv("/proc/self/exe", &argv)
    say("exec failed: \(errno)")
}

/// The image `execAfterSpawn` became: wait(-1) until no child is left.
func reapAll() {
    let expected = arguments.count > 3 ? pid_t(arguments[3]) ?? -1 : -1
    var seen: [String] = []
    var status: Int32 = 0
    while true {
        let pid = wait(&status)
        if pid < 0 { break }
        seen.append(pid == expected ? "the spawned child, \(describe(status))" : "another process, \(describe(status))")
    }
    say("after exec, reaped \(seen.count): \(seen.joined(separator: "; "))")
}

nonisolated(unsafe) var terminationsHandled = 0

/// Dispositions reset to their defaults after start-up, and a handler of the program's own.
func signalDispositions() {
    busy("before reset")
    for signal in [SIGSEGV, SIGABRT, SIGBUS, SIGTERM] { Glibc.signal(signal, SIG_DFL) }
    for (signal, name) in [(SIGABRT, "abort"), (SIGSEGV, "segv"), (SIGTERM, "term")] {
        let child = fork()
        if child == 0 {
            busy("child \(name)", calls: 10, lines: 2)
            raise(signal)
            _exit(0)
        }
        var status: Int32 = 0
        waitpid(child, &status, 0)
        say("child raising \(name): \(describe(status))")
    }
    Glibc.signal(SIGTERM) { _ in terminationsHandled += 1 }
    raise(SIGTERM)
    busy("after own handler")
    say("own SIGTERM handler ran \(terminationsHandled) time(s)")
}
