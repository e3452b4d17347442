import Foundation
import TrailRewriter

#if canImport(Glibc)
import Glibc
#endif

/// Runs SwiftPM and the programs it built for `trail test` and `trail run`, with their output passed on as it
/// comes, the copy's paths mapped to the user's (`PathMapper`). On a terminal the child writes to a pseudo-terminal
/// of its own, so SwiftPM draws its progress as it does for the user; on a pipe it gets pipes, and writes plain
/// lines. The child runs in a process group of its own, which Ctrl-C stops as a whole (`Interruption`).
public enum ChildProcess {
    public struct Options {
        /// Added to this process's environment.
        public var environment: [String: String] = [:]
        /// Replaced in everything the child prints.
        public var mapping: (from: String, to: String)?
        /// The child's standard output goes to this process's standard error (build progress, for `trail run`).
        public var outputToStandardError = false
        /// The child keeps this process's standard input and process group: a program that reads the terminal.
        public var interactive = false
        /// Called with each line of the child's standard output, mapped.
        public var onLine: ((String) -> Void)?

        public init() {}
    }

    /// Runs `arguments` (found on PATH) and returns the exit status, 128 + signal when a signal ended it. When
    /// Ctrl-C stopped it, this process exits with status 130 once the child's group is gone.
    public static func run(_ arguments: [String], _ options: Options) throws(SourceError) -> Int32 {
        let outputDescriptor: Int32 = options.outputToStandardError ? 2 : 1
        let terminal = isatty(outputDescriptor) != 0 && !options.interactive
        var environment = ProcessInfo.processInfo.environment
        environment.merge(options.environment) { $1 }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
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
        var flags = Int32(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)

        // The descriptors this process reads: the terminal's master side, or the two pipes.
        var readers: [(descriptor: Int32, to: Int32)] = []
        var childEnds: [Int32] = []
        if terminal {
            // posix_openpt, unlockpt and ptsname, which Glibc's module leaves out: TIOCSPTLCK and TIOCGPTN.
            let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
            var unlock: Int32 = 0
            var number: UInt32 = 0
            guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0
            else {
                throw SourceError(path: "/dev/ptmx", message: "cannot open a terminal for the build")
            }
            let name = "/dev/pts/\(number)"
            // Newlines pass as they are: the terminal this process writes to turns them into CR LF itself.
            let slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)
            var settings = termios()
            if slave >= 0, tcgetattr(slave, &settings) == 0 {
                settings.c_oflag &= ~tcflag_t(ONLCR)
                tcsetattr(slave, TCSANOW, &settings)
            }
            if slave >= 0 { close(slave) }
            var size = winsize()
            if ioctl(outputDescriptor, UInt(TIOCGWINSZ), &size) == 0 { _ = ioctl(master, UInt(TIOCSWINSZ), &size) }
            // A session of its own, whose controlling terminal the slave becomes when opened.
            flags |= 0x80  // POSIX_SPAWN_SETSID

            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, name, O_RDWR, 0)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
            readers = [(master, outputDescriptor)]
        } else if options.interactive, isatty(outputDescriptor) != 0 {
            // A program run on the user's terminal keeps it, as it would untraced: colours, line buffering, input.
        } else {
            for target in [outputDescriptor, 2] {
                var ends: [Int32] = [0, 0]
                guard pipe(&ends) == 0 else {
                    throw SourceError(path: "pipe", message: String(cString: strerror(errno)))
                }
                for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
                posix_spawn_file_actions_adddup2(&actions, ends[1], readers.isEmpty ? 1 : 2)
                readers.append((ends[0], target))
                childEnds.append(ends[1])
            }
            if !options.interactive {
                flags |= Int32(POSIX_SPAWN_SETPGROUP)
                posix_spawnattr_setpgroup(&attributes, 0)
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            }
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        Interruption.install()
        var pid: pid_t = 0
        let argv = ["env"] + arguments
        let spawned = withCStrings(argv) { argvPointers in
            withCStrings(environment.map { "\($0.key)=\($0.value)" }) { environmentPointers in
                posix_spawn(&pid, "/usr/bin/env", &actions, &attributes, argvPointers, environmentPointers)
            }
        }
        for end in childEnds { close(end) }
        guard spawned == 0 else {
            for reader in readers { close(reader.descriptor) }
            throw SourceError(
                path: arguments.first ?? "?", message: "cannot run: \(String(cString: strerror(spawned)))")
        }
        Interruption.child = options.interactive ? pid : -pid
        defer { Interruption.child = 0 }
        let status = pass(readers, child: pid, options: options)
        if Interruption.requested { Interruption.exitNow() }
        return status
    }

    /// Copies what the child writes until it has ended and its output is drained; returns its status.
    private static func pass(_ readers: [(descriptor: Int32, to: Int32)], child pid: pid_t, options: Options) -> Int32 {
        var mappers = readers.map { _ in options.mapping.map { PathMapper(from: $0.from, to: $0.to) } }
        var lines = LineSplitter()
        var open = readers.map { _ in true }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var exitStatus: Int32?
        var interruptedAt: Double?
        func write(_ bytes: [UInt8], to descriptor: Int32, watched: Bool) {
            if watched, let onLine = options.onLine {
                lines.feed(bytes) { onLine($0.hasSuffix("\r") ? String($0.dropLast()) : $0) }
            }
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
        while open.contains(true) {
            var polled = readers.indices.map {
                pollfd(fd: open[$0] ? readers[$0].descriptor : -1, events: Int16(POLLIN), revents: 0)
            }
            let ready = poll(&polled, nfds_t(polled.count), exitStatus == nil ? 200 : 0)
            if Interruption.requested {
                let now = Date().timeIntervalSinceReferenceDate
                if interruptedAt == nil { interruptedAt = now }
                // SwiftPM stops its compilers and test processes on SIGINT; what still runs after that is killed.
                if now - interruptedAt! > 3, Interruption.child != 0 { kill(Interruption.child, SIGKILL) }
            }
            if exitStatus == nil { exitStatus = reap(pid, block: false) }
            if ready < 0 { continue }  // EINTR
            if ready == 0 {
                if exitStatus != nil { break }  // drained; a grandchild may still hold the pipe open
                continue
            }
            for index in readers.indices where open[index] && polled[index].revents != 0 {
                let count = read(readers[index].descriptor, &buffer, buffer.count)
                if count < 0, errno == EINTR || errno == EAGAIN { continue }
                guard count > 0 else {  // end of file, or EIO once the terminal's last writer closed it
                    open[index] = false
                    continue
                }
                let chunk = buffer.withUnsafeBytes { UnsafeRawBufferPointer(rebasing: $0[0 ..< count]) }
                let mapped: [UInt8]
                if mappers[index] != nil { mapped = mappers[index]!.map(chunk) } else { mapped = Array(chunk) }
                write(mapped, to: readers[index].to, watched: index == 0)
            }
        }
        for index in readers.indices {
            if let rest = mappers[index]?.finish(), !rest.isEmpty {
                write(rest, to: readers[index].to, watched: index == 0)
            }
            close(readers[index].descriptor)
        }
        lines.feed([UInt8(ascii: "\n")]) { options.onLine?($0) }
        return exitStatus ?? reap(pid, block: true)!
    }

    private static func reap(_ pid: pid_t, block: Bool) -> Int32? {
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, block ? 0 : WNOHANG)
            if result < 0, errno == EINTR { continue }
            if result <= 0 { return result == 0 ? nil : 1 }
            break
        }
        let signal = status & 0x7F
        return signal != 0 ? 128 + signal : (status >> 8) & 0xFF
    }

    private static func withCStrings<Result>(
        _ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result
    ) -> Result {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        return body(pointers)
    }
}
