import CTrailShim
import Foundation
@_spi(Testing) import Trail

#if canImport(Glibc)
import Glibc
#endif

/// Programs the runtime tests run as real processes: logging under load, dying in various ways, and async
/// calls that hop threads. `trail-probe <mode> <log dir> [arguments]`.
let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: trail-probe MODE DIR ...\n".utf8))
    exit(2)
}
let mode = arguments[1]
let directory = arguments[2]
func number(_ index: Int, _ fallback: Int) -> Int {
    arguments.count > index ? Int(arguments[index]) ?? fallback : fallback
}

var configuration = Trail.Configuration(appName: "probe", directory: directory)
configuration.destination = .file
let log = Logger(label: "probe")

switch mode {
case "settings":
    // Each NAME=VALUE through the C start-up's settings and through Swift's, printed as
    // "side<TAB>NAME<TAB>VALUE<TAB>result<TAB>message" for the sides that read NAME.
    for argument in arguments.dropFirst(3) {
        guard let equals = argument.firstIndex(of: "=") else { continue }
        let name = String(argument[..<equals])
        let value = String(argument[argument.index(after: equals)...])
        var result = [CChar](repeating: 0, count: 128)
        var message = [CChar](repeating: 0, count: 512)
        if trail_setting_check(name, value, &result, result.count, &message, message.count) != 0 {
            print(["c", name, value, String(cString: result), String(cString: message)].joined(separator: "\t"))
        }
        if let swift = Trail.Configuration.checkSetting(name, value) {
            print(["swift", name, value, swift.result, swift.message].joined(separator: "\t"))
        }
    }

case "fork-calls":
    // Four threads make traced calls while the main thread, inside a traced call, forks FORKS children. Each
    // child makes 200 traced calls and ends by exit (one in three), by _exit after a trace flush, or by _exit at once.
    // Prints "parent PID", then "child PID exit|hung" (a child still running after 10 s is killed).
    func forkChild() {
        Trail.enter("Probe.forkChild() @ Probe/main.swift:31")
        defer { Trail.exit() }
    }
    @Sendable func forkWorker() {
        Trail.enter("Probe.forkWorker() @ Probe/main.swift:32")
        defer { Trail.exit() }
    }
    let forks = number(3, 50)
    let stop = DispatchSemaphore(value: 0)
    let workers = DispatchGroup()
    for _ in 0 ..< 4 {
        workers.enter()
        Thread {
            var round = 0
            while true {
                for _ in 0 ..< 200 { forkWorker() }
                round += 1
                if stop.wait(timeout: .now()) == .success { break }
            }
            workers.leave()
        }.start()
    }
    print("parent \(getpid())")
    Trail.enter("Probe.forker() @ Probe/main.swift:33")
    for index in 0 ..< forks {
        fflush(stdout)  // else a child's exit writes the parent's buffered lines again
        let pid = fork()
        if pid == 0 {
            for _ in 0 ..< 200 { forkChild() }
            switch index % 3 {
            case 0: exit(0)
            case 1:
                trail_trace_flush()
                _exit(0)
            default: _exit(0)
            }
        }
        var status: Int32 = 0
        var ended = false
        for _ in 0 ..< 10_000 {
            if waitpid(pid, &status, WNOHANG) == pid {
                ended = true
                break
            }
            usleep(1000)
        }
        if !ended {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
        print("child \(pid) \(ended ? (index % 3 == 0 ? "exit" : "_exit") : "hung") \(status)")
    }
    Trail.exit()
    for _ in 0 ..< 4 { stop.signal() }
    workers.wait()
    print("done")
case "short-threads":
    // COUNT short-lived threads, four at a time, each making a few traced calls; prints the peak RSS in kB.
    let count = number(3, 1000)
    var started = 0
    while started < count {
        var batch: [pthread_t] = []
        for _ in 0 ..< min(4, count - started) {
            var thread = pthread_t()
            if pthread_create(
                &thread, nil,
                { _ in
                    for _ in 0 ..< 3 { nothing() }
                    return nil
                }, nil) == 0
            {
                batch.append(thread)
            }
        }
        for thread in batch { pthread_join(thread, nil) }
        started += 4
    }
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }?.split(separator: " ").dropFirst().first
    print("peak \(peak ?? "?")")

case "first-calls":
    // THREADS fresh threads, one after another, each making 100 calls of a trivial traced function; each is
    // kept alive until all are done, so that each sets up a ring of its own.
    let threads = number(3, 5)
    let finished = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    for _ in 0 ..< threads {
        Thread {
            for _ in 0 ..< 100 { nothing() }
            finished.signal()
            release.wait()
        }.start()
        finished.wait()
    }
    for _ in 0 ..< threads { release.signal() }
    print("done")

case "trace-unwritable":
    // COUNT traced calls into a trace that cannot be created, then END: "fatal" (a fatal Trail.report) or
    // "exit". Prints the monotonic time just before the end, so that a test sees how long the exit took.
    for _ in 0 ..< number(4, 1000) { nothing() }
    var ending = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ending)
    print("ending \(Int(ending.tv_sec) * 1_000_000_000 + ending.tv_nsec)")
    fflush(stdout)
    if arguments.count > 3, arguments[3] == "fatal" {
        Trail.report(ProbeError(), fatal: true, context: "trace unwritable")
    } else {
        exit(0)
    }

case "torture":
    // THREADS threads x LINES lines, rotating every ROTATE bytes, every file kept.
    let threads = number(3, 8)
    let lines = number(4, 100_000)
    configuration.maxFileSize = number(5, 65536)
    configuration.maxFiles = 1_000_000
    configuration.maxTotalSize = Int.max
    try Trail.bootstrap(configuration)
    let group = DispatchGroup()
    for thread in 0 ..< threads {
        group.enter()
        Thread {
            let logger = Logger(label: "t\(thread)")
            for line in 0 ..< lines {
                logger.info("line \(line) of thread \(thread) with a payload to make it longer")
            }
            group.leave()
        }.start()
    }
    group.wait()

case "durable", "buffered":
    // Logs COUNT lines, then dies of SIGKILL, which no handler sees.
    configuration.durable = mode == "durable"
    configuration.flushInterval = 10  // so that only durability can save the lines
    try Trail.bootstrap(configuration)
    for line in 0 ..< number(3, 1000) { log.info("kept \(line)") }
    kill(getpid(), SIGKILL)

case "crash":
    // Logs COUNT buffered lines, then crashes by METHOD.
    configuration.flushInterval = 10
    try Trail.bootstrap(configuration)
    for line in 0 ..< number(4, 1000) { log.info("before crash \(line)") }
    switch arguments.count > 3 ? arguments[3] : "segv" {
    case "segv": UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 1
    case "abort": abort()
    case "fatal": fatalError("probe fatal error")
    case "trap": raise(SIGTRAP)
    case "traced":
        // Inside a traced call, a reported error, then a crash: an ERROR block, then a CRASH block (with
        // breadcrumbs and the open call under TRAIL_TRACE=record).
        Trail.enter("Probe.traced() @ Probe/main.swift:60")
        Trail.report(ProbeError(), context: "on purpose")
        UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 1
    case "late-library":
        // A library loaded just now, before any refresh of the prepared image map, crashes at once.
        guard let zlib = dlopen("libz.so.1", RTLD_NOW), let crc32 = dlsym(zlib, "crc32") else { exit(3) }
        typealias Checksum = @convention(c) (UInt, UnsafeRawPointer?, UInt32) -> UInt
        print(unsafeBitCast(crc32, to: Checksum.self)(0, UnsafeRawPointer(bitPattern: 16), 64))
    case "relative-library":
        // A library opened by a relative path, seen by a refresh of the image map (once a second), then a crash in it.
        guard let plug = dlopen("plug/libPlug.so", RTLD_NOW), let crc32 = dlsym(plug, "crc32") else { exit(3) }
        usleep(1_500_000)
        typealias Checksum = @convention(c) (UInt, UnsafeRawPointer?, UInt32) -> UInt
        print(unsafeBitCast(crc32, to: Checksum.self)(0, UnsafeRawPointer(bitPattern: 16), 64))
    case "thread-overflow":
        // A stack overflow on a thread the program started: caught only if that thread has an alternate stack.
        @Sendable func dive(_ depth: Int) -> Int {
            var padding = (depth, depth, depth, depth)
            return withUnsafeMutablePointer(to: &padding) { dive($0.pointee.0 + 1) + $0.pointee.1 }
        }
        let worker = Thread {
            Trail.nameThread("probe-worker")
            print(dive(0))
        }
        worker.start()
        waitForTheCrash()
    case "dispatch-overflow", "foundation-overflow":
        // The same on a thread the program never names or traces: a Dispatch worker, or a Foundation thread.
        @Sendable func dive(_ depth: Int) -> Int {
            var padding = (depth, depth, depth, depth)
            return withUnsafeMutablePointer(to: &padding) { dive($0.pointee.0 + 1) + $0.pointee.1 }
        }
        if arguments[3] == "dispatch-overflow" {
            DispatchQueue.global().async { print(dive(0)) }
        } else {
            Thread { print(dive(0)) }.start()
        }
        waitForTheCrash()
    case "two-threads":
        // Four threads unwrap a nil at the same moment: the later ones wait for the first one's block.
        let settings: [String: Int] = [:]
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            usleep(100_000)
            print(settings["missing"]! + index)
        }
    case "bad-call":
        // A call through a pointer to no code: the unwinder faults on the pc.
        unsafeBitCast(UnsafeRawPointer(bitPattern: 0x1000)!, to: (@convention(c) () -> Void).self)()
    case "empty-mapping":
        // An empty file mapped somewhere in the process: touching it would be a SIGBUS. Then a crash.
        let path = directory + "/empty.bin"
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0, mmap(nil, 4096, PROT_READ, MAP_PRIVATE, fd, 0) != MAP_FAILED else { exit(3) }
        UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 1
    default: break
    }

case "report-race":
    // THREADS threads each report COUNT errors at once: the blocks share one buffer.
    try Trail.bootstrap(configuration)
    let group = DispatchGroup()
    let rounds = number(4, 100)
    for thread in 0 ..< number(3, 4) {
        group.enter()
        Thread {
            for round in 0 ..< rounds { Trail.report(ProbeError(), context: "thread \(thread) round \(round)") }
            group.leave()
        }.start()
    }
    group.wait()
    print("reported")

case "rotating-crash":
    // THREADS threads log without pause while the logger rotates (TRAIL_LOG_MAX_SIZE), and after MS
    // milliseconds the main thread dies of a Swift runtime error.
    configuration.maxFiles = 5
    try Trail.bootstrap(configuration)
    for thread in 0 ..< number(3, 4) {
        Thread {
            let logger = Logger(label: "t\(thread)")
            var line = 0
            while true {
                logger.info("line \(line) of thread \(thread) while the logger rotates")
                line += 1
            }
        }.start()
    }
    usleep(UInt32(number(4, 30)) * 1000)
    fatalError("rotating crash")

case "previous":
    // A next launch: what bootstrap found of the previous run's crash.
    try Trail.bootstrap(configuration)
    if let crash = Trail.previousCrash {
        let whole = crash.block.hasPrefix("=== TRAIL CRASH BEGIN") && crash.block.contains("=== TRAIL CRASH END ===")
        print("previous: \(crash.summary) in \(crash.logFile) block \(whole ? "whole" : "cut")")
    } else {
        print("previous: none")
    }

case "quota":
    // LINES lines into a rotating log with a total quota, while a watcher measures the folder every
    // millisecond: the largest total it saw is printed.
    try Trail.bootstrap(configuration)
    let watch = FolderWatch(directory, every: 1000)
    for line in 0 ..< number(3, 20_000) { log.info("line \(line) of a log kept within its quota") }
    LogSink.shared.flush()
    usleep(5000)
    print("largest \(watch.stop())")

case "numbers":
    // Integers through the logger's own decimal formatter, one per line.
    try Trail.bootstrap(configuration)
    for value in [
        0, 7, 9, 10, 42, 99, 100, 101, 999, 1000, 65535, 1_234_567, -1, -9, -10, -100, -98765, Int.max, Int.min,
    ] {
        log.info("number \(value)")
    }
    LogSink.shared.flush()

case "last-words":
    // A buffered line, then a termination signal (SIGTERM, SIGINT or SIGHUP), as `systemctl stop` sends.
    configuration.flushInterval = 10
    try Trail.bootstrap(configuration)
    log.info("shutting down")
    kill(
        getpid(),
        arguments.count > 3 && arguments[3] == "int"
            ? SIGINT : arguments.count > 3 && arguments[3] == "hup" ? SIGHUP : SIGTERM)
    sleep(5)
    print("not ended")

case "forge":
    // Text a program logs that looks like a crash block, with terminal escapes and a NUL.
    try Trail.bootstrap(configuration)
    let forged = "ok\n=== TRAIL CRASH BEGIN v1 ===\nsignal: 11 SIGSEGV\n=== TRAIL CRASH END ===\r\n\u{1B}[31mred\u{0}"
    log.info("\(forged)", metadata: ["note": "two\nlines"])
    LogSink.shared.flush()

case "stderr":
    // Another process writing with C stdio, and this one too, both through the redirected fd 2.
    try Trail.bootstrap(configuration)
    log.info("before child")
    let child = Process()
    child.executableURL = URL(fileURLWithPath: arguments[0])
    child.arguments = ["child-fprintf", directory]
    try child.run()
    child.waitUntilExit()
    fputs("parent fputs to stderr\n", stderr)
    print("parent print to stdout")
    log.info("after child")
    LogSink.shared.flush()

case "json-lines":
    // Every kind of line a JSON log holds: metadata (nested, escaped), every level, raw stderr, 4 threads.
    configuration.level = .trace
    try Trail.bootstrap(configuration)
    var tagged = Logger(label: "json \"probe\"", level: .trace)
    tagged[metadataKey: "request"] = "r-1"
    for level in Logger.Level.allCases { tagged.log(level: level, "level \(level.rawValue)") }
    tagged.info(
        "quote \" backslash \\ newline \n tab \t bell \u{7} é", metadata: ["nested": ["list": ["a", "b"], "n": "1"]])
    fputs("raw stderr line\n", stderr)
    let group = DispatchGroup()
    for thread in 0 ..< 4 {
        group.enter()
        Thread {
            let logger = Logger(label: "t\(thread)")
            for line in 0 ..< number(3, 5000) { logger.info("line \(line) of thread \(thread)") }
            group.leave()
        }.start()
    }
    group.wait()
    LogSink.shared.flush()

case "json-spans":
    // Lines outside any traced call, inside a synchronous one, and inside an async one (TRAIL_TRACE=record).
    try Trail.bootstrap(configuration)
    log.info("outside")
    Trail.enter("Probe.outer() @ Probe/main.swift:1")
    log.info("inside sync")
    Trail.exit()
    await spanned()
    LogSink.shared.flush()

// MARK: an operator's day: instances, forks, floods on fd 2, folders that vanish, descriptors that run out

case "instance":
    // One of several copies of the app logging into one folder: COUNT lines tagged with ID.
    let id = number(3, 0)
    try Trail.bootstrap(configuration)
    for line in 0 ..< number(4, 20_000) { log.info("instance \(id) line \(line)") }
    LogSink.shared.flush()

case "log-steady":
    // SECONDS of RATE lines a second ("steady ID line N"), as a service logs; rotation as TRAIL_LOG_* says.
    let seconds = number(3, 3)
    let rate = number(4, 500)
    let id = number(5, 0)
    try Trail.bootstrap(configuration)
    let started = Date()
    var line = 0
    while Date().timeIntervalSince(started) < Double(seconds) {
        log.info("steady \(id) line \(line)")
        line += 1
        let wait = started.addingTimeInterval(Double(line) / Double(rate)).timeIntervalSinceNow
        if wait > 0 { usleep(UInt32(wait * 1e6)) }
    }
    LogSink.shared.flush()
    print("logged \(line)")

case "fork-log":
    // 4 threads log while the main thread forks CHILDREN children without exec; each child logs 20 lines and
    // ends with _exit. A child not ended within 5 s is killed and counted as hung.
    try Trail.bootstrap(configuration)
    final class Stop: @unchecked Sendable { var now = false }
    let stop = Stop()
    let group = DispatchGroup()
    for thread in 0 ..< 4 {
        group.enter()
        Thread {
            let logger = Logger(label: "t\(thread)")
            var line = 0
            while !stop.now || line < 2000 {
                logger.info("parent thread \(thread) line \(line)")
                line += 1
            }
            print("thread \(thread) wrote \(line)")
            group.leave()
        }.start()
    }
    var hung = 0
    for child in 0 ..< number(3, 50) {
        usleep(2000)
        let pid = fork()
        if pid == 0 {
            for line in 0 ..< 20 { log.info("child \(child) line \(line)") }
            _exit(0)
        }
        var status: Int32 = 0
        var waited = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if waited >= 5000 {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                hung += 1
                break
            }
            usleep(1000)
            waited += 1
        }
    }
    stop.now = true
    group.wait()
    print("hung \(hung)")
    LogSink.shared.flush()

case "flood":
    // BYTES bytes of lines to fd 2 as fast as write(2) takes them, from this process ("write") or from a child
    // shell that inherited fd 2 ("child"), while a watcher measures the folder every 10 ms.
    try Trail.bootstrap(configuration)
    let watch = FolderWatch(directory, every: 10_000)
    let bytes = number(4, 20_000_000)
    if arguments.count > 3, arguments[3] == "child" {
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "yes 'a line from a child shell that inherited fd 2' | head -c \(bytes) >&2"]
        try shell.run()
        shell.waitUntilExit()
    } else {
        let line = Array("a line written straight to fd 2 with write(2), many at a time\n".utf8)
        var chunk: [UInt8] = []
        while chunk.count + line.count <= 65536 { chunk += line }
        var written = 0
        while written < bytes {
            let count = chunk.withUnsafeBytes { Glibc.write(2, $0.baseAddress!, min($0.count, bytes - written)) }
            if count <= 0 { break }
            written += count
        }
    }
    LogSink.shared.flush()
    usleep(20_000)
    print("largest \(watch.stop())")

case "vanish":
    // Logs, then the log folder ("folder") or only the log file ("file") is deleted as by hand; more lines follow,
    // some logged, some printed to fd 2, with pauses longer than a flush interval.
    try Trail.bootstrap(configuration)
    for line in 0 ..< 100 { log.info("before \(line)") }
    LogSink.shared.flush()
    if arguments.count > 3, arguments[3] == "file" {
        unlink(directory + "/probe.log")
    } else {
        try FileManager.default.removeItem(atPath: directory)
    }
    usleep(200_000)
    for line in 0 ..< 1000 {
        log.info("after \(line)")
        if line % 100 == 0 { fputs("raw after \(line)\n", stderr) }
    }
    usleep(200_000)
    LogSink.shared.flush()
    print("done")

case "emfile":
    // Rotating every 4 KiB while no descriptor is left: lines go to the original stderr, counted, until
    // descriptors are free again.
    try Trail.bootstrap(configuration)
    for line in 0 ..< 100 { log.info("first \(line) with some padding to fill the small files sooner") }
    LogSink.shared.flush()
    var spare: [Int32] = []
    while true {
        let fd = open("/dev/null", O_RDONLY)
        if fd < 0 { break }
        spare.append(fd)
    }
    for line in 0 ..< 200 { log.info("starved \(line) with some padding to fill the small files sooner") }
    LogSink.shared.flush()
    for fd in spare { close(fd) }
    for line in 0 ..< 100 { log.info("last \(line) with some padding to fill the small files sooner") }
    LogSink.shared.flush()
    print("done")

case "soak":
    // One worker of `make soak` (Tests/Soak/soak.py): TAG THREADS LINES FORKS SHELLS END. THREADS threads log
    // LINES lines each; FORKS children forked without exec log 5 lines each and end with _exit or exit;
    // SHELLS shells inherit fd 2 and print 50 lines to it; then the worker ends by END: exit, segv, abort,
    // fatal, term (SIGTERM to itself) or wait (until the driver kills it). Each line is "soak <source> <n> ."
    // and what each source must have written is printed on stdout as "expect <source> <count>".
    let tag = arguments[3]
    let threads = number(4, 2)
    let lines = number(5, 1000)
    let forks = number(6, 5)
    let shells = number(7, 2)
    let end = arguments.count > 8 ? arguments[8] : "exit"
    try Trail.bootstrap(configuration)
    setvbuf(stdout, nil, _IOLBF, 0)
    let group = DispatchGroup()
    for thread in 0 ..< threads {
        group.enter()
        Thread {
            let logger = Logger(label: "soak")
            for line in 0 ..< lines { logger.info("soak \(tag)-t\(thread) \(line) .") }
            group.leave()
        }.start()
        print("expect \(tag)-t\(thread) \(lines)")
    }
    for child in 0 ..< forks {
        let pid = fork()
        if pid == 0 {
            for line in 0 ..< 5 { log.info("soak \(tag)-f\(child) \(line) .") }
            if child % 2 == 0 { _exit(0) } else { exit(0) }
        }
        var status: Int32 = 0
        var waited = 0
        while waitpid(pid, &status, WNOHANG) == 0, waited < 10_000 {
            usleep(1000)
            waited += 1
        }
        // A hung child is left for the driver to look at (its stack) and end.
        print(waited < 10_000 ? "expect \(tag)-f\(child) 5" : "hung fork \(child) pid \(pid)")
    }
    for shell in 0 ..< shells {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c", "i=0; while [ $i -lt 50 ]; do echo \"soak \(tag)-s\(shell) $i .\" >&2; i=$((i+1)); done",
        ]
        try process.run()
        process.waitUntilExit()
        print("expect \(tag)-s\(shell) 50")
    }
    group.wait()
    print("logged")
    switch end {
    case "segv": UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 1
    case "abort": abort()
    case "fatal": fatalError("soak fatal")
    case "term":
        kill(getpid(), SIGTERM)
        sleep(10)
    case "wait": sleep(60)
    default: LogSink.shared.flush()
    }

case "outlive":
    // A child started in the background writes to the fd 2 it inherited after this process has exited (END:
    // exit, or segv), then leaves a file behind: it must neither block nor die of SIGPIPE.
    try Trail.bootstrap(configuration)
    log.info("starting a child that outlives me")
    let late = Process()
    late.executableURL = URL(fileURLWithPath: "/bin/sh")
    late.arguments = [
        "-c",
        "sleep 0.5; i=0; while [ $i -lt 3000 ]; do echo \"late line $i from a child\" >&2; i=$((i+1)); done; echo ok > \"$0/../child-done\"",
        directory,
    ]
    try late.run()
    if arguments.count > 3, arguments[3] == "segv" { UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 1 }
    exit(0)

case "closed-stderr":
    // A daemon started with fd 2 closed: the log must still take the program's stderr and the logger's lines.
    close(2)
    try Trail.bootstrap(configuration)
    log.info("logged with fd 2 closed at start")
    fputs("written to stderr with fd 2 closed at start\n", stderr)
    LogSink.shared.flush()

case "daemon":
    // A buffered line, then daemon(): the parent ends at once with _exit and the child's fd 2 becomes /dev/null.
    // The child logs, then leaves DIR/../daemon-done.
    configuration.flushInterval = 10
    try Trail.bootstrap(configuration)
    log.info("before daemon")
    guard daemon(1, 0) == 0 else { exit(3) }
    log.info("after daemon")
    LogSink.shared.flush()
    FileManager.default.createFile(atPath: directory + "/../daemon-done", contents: Data())
    exit(0)

case "exec":
    // After bootstrap the program replaces itself with a shell that writes to stdout and stderr.
    try Trail.bootstrap(configuration)
    log.info("before exec")
    let shellArguments = ["sh", "-c", "echo a; echo 'from the program exec ran' >&2; echo b"]
    var pointers = shellArguments.map { strdup($0) } + [nil]
    execv("/bin/sh", &pointers)
    exit(3)

case "child-fprintf":
    fputs("child C fprintf to stderr\n", stderr)

case "fatal":
    try Trail.bootstrap(configuration)
    log.info("about to fail")
    fatalError("probe fatal error")

case "file-size-limit":
    // RLIMIT_FSIZE of 4 KiB with SIGXFSZ at its default: a write past it would kill the program. The log rotates at
    // the limit instead, as at a full file.
    var limit = rlimit(rlim_cur: 4096, rlim_max: 4096)
    setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit)
    try Trail.bootstrap(configuration)
    for line in 0 ..< 2000 { log.info("line \(line) that will not all fit") }
    LogSink.shared.flush()
    print("still running")

case "full-disk":
    // DIR is on a small file system of its own (the test mounts it): twice, a filler file takes every free byte,
    // lines are logged, and the filler is deleted. Line lengths vary, so that writes end mid-line at the full disk.
    try Trail.bootstrap(configuration)
    let filler = directory + "/../filler"
    func fill() {
        let fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let block = [UInt8](repeating: 70, count: 4096)
        while block.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        while block.withUnsafeBytes({ write(fd, $0.baseAddress, 1) }) > 0 {}
        close(fd)
    }
    var line = 0
    func logSome(_ count: Int, _ phase: String) {
        for _ in 0 ..< count {
            log.info("\(phase) line \(line) \(String(repeating: "x", count: line * 37 % 300))")
            line += 1
        }
        LogSink.shared.flush()
    }
    logSome(100, "first")
    for episode in 1 ... 2 {
        fill()
        logSome(300, "full \(episode)")
        unlink(filler)
        logSome(100, "freed \(episode)")
    }
    print("done")

case "trace-diskfull":
    // A file size limit of SIZE bytes stands in for a full disk under a trace: writes past it fail with EFBIG.
    signal(SIGXFSZ, SIG_IGN)
    var limit = rlimit(rlim_cur: rlim_t(number(4, 262_144)), rlim_max: rlim_t(number(4, 262_144)))
    setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit)
    for _ in 0 ..< number(3, 200_000) { nothing() }
    print("still running")

case "trace-then":
    // COUNT traced calls, then an end without atexit, without Trail.bootstrap: segv, abort, fatal, sigterm,
    // sigint or pipe (a write to a pipe nobody reads).
    for _ in 0 ..< number(4, 1000) { nothing() }
    switch arguments.count > 3 ? arguments[3] : "segv" {
    case "abort": abort()
    case "fatal": fatalError("probe ends")
    case "sigterm": kill(getpid(), SIGTERM)
    case "sigint": kill(getpid(), SIGINT)
    case "pipe":
        var ends: [Int32] = [0, 0]
        pipe(&ends)
        close(ends[0])
        _ = write(ends[1], "x", 1)
    default: UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 1
    }
    sleep(5)
    print("not ended")

case "exit-then-signal":
    // COUNT traced calls, then exit(0) with a line still in stdout's buffer and stdout a pipe nobody reads:
    // stdio writes it after the atexit handlers finished the trace, and the process gets SIGPIPE.
    for _ in 0 ..< number(3, 1000) { nothing() }
    var ends: [Int32] = [0, 0]
    pipe(&ends)
    dup2(ends[1], 1)
    close(ends[0])
    close(ends[1])
    print("lost")
    exit(0)

case "spawn-child":
    // Runs `trail-probe calls DIRECTORY 100` with an environment of its own: ENV, comma-separated (may be empty),
    // as a test harness does with Foundation's Process.environment.
    nothing()
    let childEnvironment = (arguments.count > 3 ? arguments[3] : "").split(separator: ",").map(String.init)
    let child = Process()
    child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    child.arguments = ["calls", directory, "100"]
    child.environment = Dictionary(
        uniqueKeysWithValues: childEnvironment.map { entry in
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            return (parts[0], parts.count > 1 ? parts[1] : "")
        })
    try child.run()
    child.waitUntilExit()
    print("child \(child.terminationStatus)")

case "async":
    // Async calls that suspend and resume, usually on another thread, traced as instrumented code would be.
    for round in 0 ..< number(3, 20) {
        await hop(round)
    }
    print("done")

case "context":
    // A request handled inside the caller's TRACEPARENT (arguments[3]): a traced call, a log line outside any
    // call, a traced call that sends the header on, and an async call in a child task.
    try Trail.bootstrap(configuration)
    Trail.withTraceContext(traceparent: arguments[3]) {
        nothing()
        log.info("inside context")
        relay()
    }
    await Trail.withTraceContext(traceparent: arguments[3]) { await leafInChildTask() }
    print("outside \(Trail.currentTraceparent ?? "none")")

case "context-spawn":
    // Inside the caller's TRACEPARENT (arguments[3]), one child started from a traced call, and one started with
    // no traced call open (the context itself is then the child's parent).
    Trail.withTraceContext(traceparent: arguments[3]) {
        spawner(directory, 1)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = ["calls", directory, "10"]
        try? child.run()
        child.waitUntilExit()
    }
    print("done")

case "steady":
    // A server's day in small: RATE requests a second for SECONDS, each a traced call with three inside; the
    // trace flushed as it goes (the writer drains busy rings at once), then the process ends.
    let seconds = number(3, 3)
    let rate = number(4, 200)
    let started = Date()
    var served = 0
    while Date().timeIntervalSince(started) < Double(seconds) {
        request(served)
        served += 1
        let due = started.addingTimeInterval(Double(served) / Double(rate))
        let wait = due.timeIntervalSinceNow
        if wait > 0 { usleep(UInt32(wait * 1e6)) }
    }
    print("served \(served)")

case "spawn-many":
    // COUNT children (`calls DIRECTORY 10`, the environment inherited) started through Foundation's Process from
    // one traced call, run at once.
    spawner(arguments[2], number(3, 20))
    print("done")

case "calls":
    // COUNT traced synchronous calls: a known number of records (two per call).
    for _ in 0 ..< number(3, 1000) { nothing() }
    print("done")

case "tasks":
    // Child tasks of every kind, each running a traced async call: which parent token each inherits.
    await family()
    print("done")

case "span":
    // The span ids the logger would write: inside a synchronous call, then inside an async one.
    Trail.enter("Probe.spanned() @ Probe/main.swift:200")
    printSpan("sync")
    Trail.exit()
    await asyncSpan()
    printSpan("none")

// MARK: crash-path modes (CrashPathTests): conditions a crash handler must neither hang on nor lose a crash to.
case "crash-past-pipe-limit":
    // Enough pipes held that the user passes pipe-user-pages-soft: a new pipe then holds one or two pages.
    // Root is exempt from that limit, and the count is the user's: as root the probe becomes `nobody` first
    // (the test gives it the folder), so that no other process is held to small pipes. Then a crash.
    var files = rlimit()
    getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &files)
    files.rlim_cur = files.rlim_max
    setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &files)
    if getuid() == 0 {
        guard setgroups(0, nil) == 0, setgid(65534) == 0, setuid(65534) == 0 else { exit(4) }
    }
    try Trail.bootstrap(configuration)
    let soft =
        Int(
            (try? String(contentsOfFile: "/proc/sys/fs/pipe-user-pages-soft", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 16384
    for _ in 0 ..< soft / 16 + 16 {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { break }
    }
    var probe: [Int32] = [0, 0]
    guard pipe(&probe) == 0 else { exit(4) }
    // 1032 is F_GETPIPE_SZ.
    print("new pipe holds \(fcntl(probe[1], 1032)) bytes")
    fflush(stdout)
    UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 1
case "crash-into-fifos":
    // FIFOs planted after bootstrap at every name the crash marker could use, then a crash.
    try Trail.bootstrap(configuration)
    for name in ["probe.crash", "probe.\(getpid()).crash", "probe.\(getpid()).crash.tmp"] {
        guard mkfifo(directory + "/" + name, 0o600) == 0 else { exit(4) }
    }
    UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 1
case "crash-in-unloaded-site":
    // The name of an open traced call lives in a library unloaded before the crash.
    try Trail.bootstrap(configuration)
    guard let library = dlopen(arguments[3], RTLD_NOW), let site = dlsym(library, "site") else { exit(3) }
    trail_enter_sync(site.assumingMemoryBound(to: CChar.self))
    guard dlclose(library) == 0 else { exit(4) }
    UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 1
case "repaired-fault":
    // A handler installed before Trail's, as a GC's: "repair" makes the page writable and returns, "return"
    // returns without repairing. Then a write to a PROT_NONE page.
    guardedPage = mmap(nil, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
    guard guardedPage != MAP_FAILED else { exit(3) }
    repairs = arguments[3] == "repair"
    var action = sigaction()
    action.__sigaction_handler.sa_sigaction = { _, _, _ in
        faultsSeen += 1
        if repairs { mprotect(guardedPage, 4096, PROT_READ | PROT_WRITE) }
    }
    action.sa_flags = SA_SIGINFO
    sigaction(SIGSEGV, &action, nil)
    try Trail.bootstrap(configuration)
    guardedPage!.storeBytes(of: 42, as: Int.self)
    print("went on after \(faultsSeen) fault(s), page holds \(guardedPage!.load(as: Int.self))")
case "console-crash":
    // Console mode (as in a developer's terminal; "automatic" decides by stderr), then a crash.
    configuration.destination = arguments.count > 3 && arguments[3] == "automatic" ? .automatic : .console
    try Trail.bootstrap(configuration)
    log.info("console line before the crash")
    UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 1
case "default-folder":
    // No folder given: where the log goes (HOME and XDG_STATE_HOME are set empty by the test).
    var defaults = Trail.Configuration(appName: "probe")
    defaults.destination = .file
    print(try Trail.bootstrap(defaults) ?? "none")
case "civil-dates":
    // Each line of stdin, seconds since 1970, as the crash handler and the logger format it.
    while let line = readLine() {
        guard let seconds = Int64(line) else { continue }
        var text = [CChar](repeating: 0, count: 20)
        trail_format_civil(seconds, &text)
        print(String(cString: text))
    }

default:
    FileHandle.standardError.write(Data("unknown mode \(mode)\n".utf8))
    exit(2)
}

func hop(_ round: Int) async {
    let span = Trail.enterAsync("Probe.hop(_:) @ Probe/main.swift:100")
    defer { Trail.exit(span) }
    try? await Task.sleep(nanoseconds: 200_000)
    await withTaskGroup(of: Void.self) { group in
        for _ in 0 ..< 2 { group.addTask { await leaf() } }
    }
    work()
}

func spanned() async {
    let span = Trail.enterAsync("Probe.spanned() @ Probe/main.swift:2")
    defer { Trail.exit(span) }
    await Task.yield()
    log.info("inside async")
}

func leaf() async {
    let span = Trail.enterAsync("Probe.leaf() @ Probe/main.swift:110")
    defer { Trail.exit(span) }
    await Task.yield()
    work()
}

func request(_ number: Int) {
    Trail.enter("Probe.request(_:) @ Probe/main.swift:150")
    defer { Trail.exit() }
    for _ in 0 ..< 3 { nothing() }
}

func leafInChildTask() async {
    async let child: Void = leaf()
    await child
}

func relay() {
    Trail.enter("Probe.relay() @ Probe/main.swift:140")
    defer { Trail.exit() }
    print("relay \(Trail.currentTraceparent ?? "none")")
}

func spawner(_ directory: String, _ count: Int) {
    Trail.enter("Probe.spawner(_:_:) @ Probe/main.swift:130")
    defer { Trail.exit() }
    var children: [Process] = []
    for _ in 0 ..< count {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = ["calls", directory, "10"]
        try? child.run()
        children.append(child)
    }
    for child in children { child.waitUntilExit() }
}

func nothing() {
    Trail.enter("Probe.nothing() @ Probe/main.swift:120")
    defer { Trail.exit() }
}

@Sendable func work() {
    Trail.enter("Probe.work() @ Probe/main.swift:116")
    defer { Trail.exit() }
    _ = (0 ..< 100).reduce(0, +)
}

func family() async {
    let span = Trail.enterAsync("Probe.family() @ Probe/main.swift:130")
    defer { Trail.exit(span) }
    async let first: Void = child("asyncLet")
    await first
    await withTaskGroup(of: Void.self) { group in
        group.addTask { await child("group") }
    }
    await Task { await child("task") }.value
    await Task.detached { await child("detached") }.value
}

@Sendable func child(_ kind: String) async {
    // One site per kind, so the test can tell them apart.
    let site: StaticString =
        switch kind {
        case "asyncLet": "Probe.child.asyncLet() @ Probe/main.swift:140"
        case "group": "Probe.child.group() @ Probe/main.swift:141"
        case "task": "Probe.child.task() @ Probe/main.swift:142"
        default: "Probe.child.detached() @ Probe/main.swift:143"
        }
    let span = Trail.enterAsync(site)
    defer { Trail.exit(span) }
    await Task.yield()
    work()
}

func asyncSpan() async {
    let span = Trail.enterAsync("Probe.asyncSpan() @ Probe/main.swift:150")
    defer { Trail.exit(span) }
    await Task.yield()
    printSpan("async")
}

func printSpan(_ label: String) {
    var trace = [UInt8](repeating: 0, count: 16)
    var span: UInt64 = 0
    if trail_current_span(&trace, &span) == 1 {
        print("\(label) span \(span) trace \(trace.map { String($0, radix: 16) }.joined(separator: ","))")
    } else {
        print("\(label) none")
    }
}

/// Waits for a crash on another thread. A plain sleep would end early: the Swift backtracer signals every
/// thread to take its snapshot, the sleep returns, and the main thread would exit 0 under the crash.
func waitForTheCrash() {
    let deadline = time(nil) + 30
    while time(nil) < deadline { sleep(1) }
}

struct ProbeError: Error {}

// MARK: crash-path helpers

/// The page the repairing handler of "repaired-fault" makes writable, and what it saw.
nonisolated(unsafe) var guardedPage: UnsafeMutableRawPointer?
nonisolated(unsafe) var repairs = false
nonisolated(unsafe) var faultsSeen = 0

/// Measures a log folder's size every `every` microseconds on a thread of its own, counting each file once by
/// inode (a listing taken while a file is renamed can name it twice); `stop()` gives the largest size seen.
final class FolderWatch: @unchecked Sendable {
    private var largest = 0, done = false
    private let lock = NSLock()

    init(_ directory: String, every interval: UInt32) {
        Thread { [self] in
            while !lock.withLock({ done }) {
                var sizes: [UInt: Int] = [:]
                for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
                where name.hasSuffix(".log") {
                    var info = stat()
                    if lstat(directory + "/" + name, &info) == 0 { sizes[UInt(info.st_ino)] = Int(info.st_size) }
                }
                let total = sizes.values.reduce(0, +)
                lock.withLock { largest = max(largest, total) }
                usleep(interval)
            }
        }.start()
    }

    func stop() -> Int {
        usleep(20_000)  // one more look after the last write
        return lock.withLock {
            done = true
            return largest
        }
    }
}
