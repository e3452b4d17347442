import CTrailShim
import Foundation
import RuntimeProbeModes
@_spi(Testing) import Trail

#if canImport(Glibc)
import Glibc
#endif

/// An operator's day: instances, forks, floods on fd 2, folders that vanish, descriptors and disks that run out.
extension ProbeRun {
    /// One of several copies of the app logging into one folder: COUNT lines tagged with ID.
    func instance() throws {
        let id = number(3, 0)
        try Trail.bootstrap(configuration)
        for line in 0 ..< number(4, 20_000) { log.info("instance \(id) line \(line)") }
        LogSink.shared.flush()
    }

    /// SECONDS of RATE lines a second ("steady ID line N"), as a service logs; rotation as TRAIL_LOG_* says.
    func logSteady() throws {
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
    }

    /// 4 threads log while the main thread forks CHILDREN children without exec; each child logs 20 lines and
    /// ends with _exit. A child not ended within 5 s is killed and counted as hung.
    func forkLog() throws {
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
    }

    /// BYTES bytes of lines to fd 2 as fast as write(2) takes them, from this process ("write") or from a child
    /// shell that inherited fd 2 ("child"), while a watcher measures the folder every 10 ms.
    func flood() throws {
        try Trail.bootstrap(configuration)
        let watch = FolderWatch(directory, every: 10_000)
        let bytes = number(4, 20_000_000)
        if choice(3, or: FloodSource.write) == .child {
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
    }

    /// Logs, then the log folder ("folder") or only the log file ("file") is deleted as by hand; more lines follow,
    /// some logged, some printed to fd 2, with pauses longer than a flush interval.
    func vanish() throws {
        try Trail.bootstrap(configuration)
        for line in 0 ..< 100 { log.info("before \(line)") }
        LogSink.shared.flush()
        if choice(3, or: VanishingPart.folder) == .file {
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
    }

    /// Rotating every 4 KiB while no descriptor is left: lines go to the original stderr, counted, until
    /// descriptors are free again.
    func emfile() throws {
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
    }

    /// A child started in the background writes to the fd 2 it inherited after this process has exited (END:
    /// exit, or segv), then leaves a file behind: it must neither block nor die of SIGPIPE.
    func outlive() throws {
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
        if choice(3, or: OutliveEnd.exit) == .segv { UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 1 }
        exit(0)
    }

    /// A daemon started with fd 2 closed: the log must still take the program's stderr and the logger's lines.
    func closedStderr() throws {
        close(2)
        try Trail.bootstrap(configuration)
        log.info("logged with fd 2 closed at start")
        fputs("written to stderr with fd 2 closed at start\n", stderr)
        LogSink.shared.flush()
    }

    /// A buffered line, then daemon(): the parent ends at once with _exit and the child's fd 2 becomes /dev/null.
    /// The child logs, then leaves DIR/../daemon-done.
    func daemonRun() throws {
        configuration.flushInterval = 10
        try Trail.bootstrap(configuration)
        log.info("before daemon")
        guard daemon(1, 0) == 0 else { exit(3) }
        log.info("after daemon")
        LogSink.shared.flush()
        _ = FileManager.default.createFile(atPath: directory + "/../daemon-done", contents: Data())
        exit(0)
    }

    /// After bootstrap the program replaces itself with a shell that writes to stdout and stderr.
    func exec() throws {
        try Trail.bootstrap(configuration)
        log.info("before exec")
        let shellArguments = ["sh", "-c", "echo a; echo 'from the program exec ran' >&2; echo b"]
        var pointers = shellArguments.map { strdup($0) } + [nil]
        execv("/bin/sh", &pointers)
        exit(3)
    }

    /// DIR is on a small file system of its own (the test mounts it): twice, a filler file takes every free byte,
    /// lines are logged, and the filler is deleted. Line lengths vary, so that writes end mid-line at the full disk.
    func fullDisk() throws {
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
    }
}
