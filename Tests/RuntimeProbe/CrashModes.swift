import CTrailShim
import Foundation
import RuntimeProbeModes
@_spi(Testing) import Trail

#if canImport(Glibc)
import Glibc
#endif

/// Crashes, and conditions a crash handler must neither hang on nor lose a crash to (CrashPathTests).
extension ProbeRun {
    /// Logs COUNT buffered lines, then crashes by METHOD.
    func crash() throws {
        configuration.flushInterval = 10
        try Trail.bootstrap(configuration)
        for line in 0 ..< number(4, 1000) { log.info("before crash \(line)") }
        let method = choice(3, or: CrashMethod.segv)
        switch method {
        case .segv: UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 1
        case .forkedChild:
            // A child forked without exec makes traced calls and crashes; the parent ends as the child did.
            let child = fork()
            if child == 0 {
                for _ in 0 ..< 1000 { nothing() }
                UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 1
            }
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}
            log.info("child ended: \(status & 0x7f)")
            exit(0)
        case .abort: abort()
        case .fatal: fatalError("probe fatal error")
        case .trap: raise(SIGTRAP)
        case .traced:
            // Inside a traced call, a reported error, then a crash: an ERROR block, then a CRASH block (with
            // breadcrumbs and the open call under TRAIL_TRACE=record).
            Trail.enter("Probe.traced() @ Probe/main.swift:60")
            Trail.report(ProbeError(), context: "on purpose")
            UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 1
        case .lateLibrary:
            // A library loaded just now, before any refresh of the prepared image map, crashes at once.
            guard let zlib = dlopen("libz.so.1", RTLD_NOW), let crc32 = dlsym(zlib, "crc32") else { exit(3) }
            typealias Checksum = @convention(c) (UInt, UnsafeRawPointer?, UInt32) -> UInt
            print(unsafeBitCast(crc32, to: Checksum.self)(0, UnsafeRawPointer(bitPattern: 16), 64))
        case .relativeLibrary:
            // A library opened by a relative path, seen by a refresh of the image map (once a second), then a crash in it.
            guard let plug = dlopen("plug/libPlug.so", RTLD_NOW), let crc32 = dlsym(plug, "crc32") else { exit(3) }
            usleep(1_500_000)
            typealias Checksum = @convention(c) (UInt, UnsafeRawPointer?, UInt32) -> UInt
            print(unsafeBitCast(crc32, to: Checksum.self)(0, UnsafeRawPointer(bitPattern: 16), 64))
        case .threadOverflow:
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
        case .dispatchOverflow, .foundationOverflow:
            // The same on a thread the program never names or traces: a Dispatch worker, or a Foundation thread.
            @Sendable func dive(_ depth: Int) -> Int {
                var padding = (depth, depth, depth, depth)
                return withUnsafeMutablePointer(to: &padding) { dive($0.pointee.0 + 1) + $0.pointee.1 }
            }
            if method == .dispatchOverflow {
                DispatchQueue.global().async { print(dive(0)) }
            } else {
                Thread { print(dive(0)) }.start()
            }
            waitForTheCrash()
        case .twoThreads:
            // Four threads unwrap a nil at the same moment: the later ones wait for the first one's block.
            let settings: [String: Int] = [:]
            DispatchQueue.concurrentPerform(iterations: 4) { index in
                usleep(100_000)
                print(settings["missing"]! + index)
            }
        case .badCall:
            // A call through a pointer to no code: the unwinder faults on the pc.
            unsafeBitCast(UnsafeRawPointer(bitPattern: 0x1000)!, to: (@convention(c) () -> Void).self)()
        case .emptyMapping:
            // An empty file mapped somewhere in the process: touching it would be a SIGBUS. Then a crash.
            let path = directory + "/empty.bin"
            let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
            guard fd >= 0, mmap(nil, 4096, PROT_READ, MAP_PRIVATE, fd, 0) != MAP_FAILED else { exit(3) }
            UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 1
        }
    }

    /// THREADS threads each report COUNT errors at once: the blocks share one buffer.
    func reportRace() throws {
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
    }

    /// THREADS threads log without pause while the logger rotates (TRAIL_LOG_MAX_SIZE), and after MS
    /// milliseconds the main thread dies of a Swift runtime error.
    func rotatingCrash() throws {
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
    }

    /// Enough pipes held that the user passes pipe-user-pages-soft: a new pipe then holds one or two pages.
    /// Root is exempt from that limit, and the count is the user's: as root the probe becomes `nobody` first
    /// (the test gives it the folder), so that no other process is held to small pipes. Then a crash.
    func crashPastPipeLimit() throws {
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
    }

    /// FIFOs planted after bootstrap at every name the crash marker could use, then a crash.
    func crashIntoFifos() throws {
        try Trail.bootstrap(configuration)
        for name in ["probe.crash", "probe.\(getpid()).crash", "probe.\(getpid()).crash.tmp"] {
            guard mkfifo(directory + "/" + name, 0o600) == 0 else { exit(4) }
        }
        UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 1
    }

    /// The name of an open traced call lives in a library unloaded before the crash.
    func crashInUnloadedSite() throws {
        try Trail.bootstrap(configuration)
        guard let library = dlopen(arguments[3], RTLD_NOW), let site = dlsym(library, "site") else { exit(3) }
        trail_enter_sync(site.assumingMemoryBound(to: CChar.self))
        guard dlclose(library) == 0 else { exit(4) }
        UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 1
    }

    /// A handler installed before Trail's, as a GC's: "repair" makes the page writable and returns, "return"
    /// returns without repairing. Then a write to a PROT_NONE page.
    func repairedFault() throws {
        guardedPage = mmap(nil, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard guardedPage != MAP_FAILED else { exit(3) }
        repairs = choice(3, or: FaultHandling.return) == .repair
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
    }

    /// Console mode (as in a developer's terminal; "automatic" decides by stderr), then a crash.
    func consoleCrash() throws {
        configuration.destination = choice(3, or: ConsoleDestination.console) == .automatic ? .automatic : .console
        try Trail.bootstrap(configuration)
        log.info("console line before the crash")
        UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 1
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
