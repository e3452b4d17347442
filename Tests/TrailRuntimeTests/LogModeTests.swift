import Foundation
import Testing
import TrailTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Log mode never blocks the traced program: to a file it is bounded, to a pipe nobody reads it drops lines.
@Suite struct LogModeTests {
    @Test func linesGoToTheTraceFileWithinItsLimit() throws {
        let directory = Paths.temporaryDirectory("logfile")
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.calls, directory, 20000),
            environment: [
                "TRAIL_TRACE": "1", "TRAIL_TRACE_FILE": directory + "/lines-%p.txt", "TRAIL_TRACE_MAX_SIZE": "256K",
            ], check: true)
        #expect(!result.stderr.contains("Probe.nothing"))
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("lines-") }
        #expect(files.count == 1)
        let text = Transcript.read(directory + "/" + (files.first ?? ""))
        #expect(text.utf8.count <= 256 * 1024 + 200)
        #expect(text.contains("-> Probe.nothing()"))
        #expect(text.hasSuffix("later lines are not written\n"))
    }

    /// A parent that reads the child's stderr pipe only after the child exits (as some test runners do).
    @Test func aFullStderrPipeNeverStallsTheProgram() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let directory = Paths.temporaryDirectory("pipe")
        let arguments: [String] = [RuntimeProbe.path] + RuntimeProbe.arguments(.calls, directory, 200000)
        let argv = arguments.map { strdup($0) } + [nil]
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("TRAIL_") }
        environment["TRAIL_TRACE"] = "1"
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in (argv + envp) { free(pointer) } }
        var pid: pid_t = 0
        #expect(posix_spawn(&pid, RuntimeProbe.path, &actions, nil, argv, envp) == 0)
        close(fds[1])
        var status: Int32 = 0
        var finished = false
        for _ in 0 ..< 600 {  // 30 s at most
            if waitpid(pid, &status, WNOHANG) == pid {
                finished = true
                break
            }
            usleep(50_000)
        }
        if !finished {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
        #expect(finished, "the traced child blocked on its full stderr pipe")
        #expect(status == 0)
        var text = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while case let count = read(fds[0], &buffer, buffer.count), count > 0 { text += buffer[..<count] }
        let output = String(decoding: text, as: UTF8.self)
        #expect(output.contains("-> Probe.nothing()"))
        #expect(output.contains("trace lines dropped: stderr is full"))
    }
}
