import Foundation
import Testing
import TrailTestSupport

/// The exec family, system and popen as C programs call them (Tests/Fixtures/ExecProbe), with the runtime's C
/// linked in: little stack and no argument limit with tracing off, no dlsym once main runs, TRACEPARENT handed on
/// as the program means it, and a trace finished before the exec.
@Suite struct ExecHandoffTests {
    /// exec-probe, built once per test process from the fixture and the runtime's C objects; or why it was not.
    static let built = CProbe.build("ExecProbe/exec_probe.c", named: "exec-probe")

    /// Runs `exec-probe mode arguments`, recording into a fresh folder when `record` is set.
    static func probe(_ arguments: [String], record: Bool = false) throws -> (result: ProcessResult, traces: String) {
        let traces = Paths.temporaryDirectory("exec-traces")
        let environment = record ? ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": traces + "/%p.trace"] : [:]
        let probe = try #require(built.path, "\(built.failure)")
        return (try run(probe, arguments, environment: environment), traces)
    }

    /// 32 KiB is all a thread that only execs needs untraced, and a vfork child runs on its parent's stack.
    @Test(arguments: ["execl-small-stack", "vfork-small-stack"], [false, true])
    func execOnA32KiBThreadStack(mode: String, record: Bool) throws {
        let (result, traces) = try Self.probe([mode], record: record)
        defer { try? FileManager.default.removeItem(atPath: traces) }
        #expect(result.shellStatus == 0, "\(result.stderr)")
        let expected =
            mode == "execl-small-stack" ? "ran on a small stack\n" : "ran in a vfork child\nvfork child status 0\n"
        #expect(result.stdout == expected)
    }

    @Test func execlTakesAsManyArgumentsAsTheSystemDoes() throws {
        let (result, traces) = try Self.probe(["execl-many"], record: true)
        defer { try? FileManager.default.removeItem(atPath: traces) }
        #expect(result.stdout == "5000 traceparent\n", "\(result.stderr)")
    }

    /// dlsym is not async-signal-safe (exec runs in signal handlers and vfork children): the real definitions
    /// are found before main, so neither pthread_create, posix_spawn nor the first exec calls it.
    @Test(arguments: [false, true])
    func noDlsymOnceMainRuns(record: Bool) throws {
        let (result, traces) = try Self.probe(["no-dlsym"], record: record)
        defer { try? FileManager.default.removeItem(atPath: traces) }
        #expect(result.stdout == "done\n")
        #expect(!result.stderr.contains("dlsym after main started"), "\(result.stderr)")
    }

    /// TRACEPARENT names the call that starts the child, unless the program decided otherwise: an explicitly
    /// empty environment stays empty, and a TRACEPARENT the program put in it stays.
    @Test func traceparentIsHandedOnAsTheProgramMeansIt() throws {
        let huge = try Self.probe(["execle-huge-env", "20000"], record: true)
        #expect(huge.result.stdout.hasPrefix("00-") && huge.result.stdout.hasSuffix(" x\n"), "\(huge.result)")
        let empty = try Self.probe(["execle-empty-env"], record: true)
        #expect(empty.result.shellStatus == 0 && empty.result.stdout == "", "\(empty.result.stdout)")
        let own = try Self.probe(["execle-own"], record: true)
        #expect(own.result.stdout == "TRACEPARENT=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\n")
        for traces in [huge.traces, empty.traces, own.traces] { try? FileManager.default.removeItem(atPath: traces) }
    }

    /// glibc starts their shells with its own posix_spawn: the command exports the context, and the status,
    /// output and stream stay libc's. With tracing off, nothing is added.
    @Test(arguments: ["system", "popen"], [false, true])
    func systemAndPopenChildrenGetTheContext(mode: String, record: Bool) throws {
        let (result, traces) = try Self.probe([mode], record: record)
        defer { try? FileManager.default.removeItem(atPath: traces) }
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2 && lines[1] == (mode == "system" ? "status 3" : "status 0"), "\(result)")
        let value = lines.first.map { $0.dropFirst(mode.count + 1) } ?? ""
        if record {
            #expect(value.count == 55 && value.hasPrefix("00-"), "\(result.stdout)")
        } else {
            #expect(value == "none")
        }
    }

    /// The one trace a probe run wrote, checked by TraceDump.
    static func trace(in directory: String) throws -> TraceDump {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".trace") }
        #expect(files.count == 1, "\(files)")
        let dump = try TraceDump(path: directory + "/" + (try #require(files.first)))
        #expect(dump.problems.isEmpty, "\(dump.problems.prefix(5))")
        return dump
    }

    /// An exec ends the process's image without atexit: the rings and END are written first, also within the
    /// writer's first 50 ms, past its first drain, and from a signal handler.
    @Test(arguments: [("exec-soon", 100), ("exec-late", 200), ("exec-in-handler", 100)])
    func recordsMadeJustBeforeAnExecAreKept(mode: String, calls: Int) throws {
        let (result, traces) = try Self.probe([mode, "100"], record: true)
        defer { try? FileManager.default.removeItem(atPath: traces) }
        #expect(result.stdout == (mode == "exec-in-handler" ? "exec from a handler\n" : "exec ran\n"), "\(result)")
        let dump = try Self.trace(in: traces)
        #expect(dump.recordCount == 2 * calls)
        #expect(dump.end?.records == UInt64(2 * calls) && dump.end?.dropped == 0)
    }

    /// Two execs that fail (a path, a PATH search): the END written before each is taken back, and the trace
    /// goes on to the one END at exit.
    @Test func aFailedExecLeavesTracingAsItWas() throws {
        let (result, traces) = try Self.probe(["exec-fails", "100"], record: true)
        defer { try? FileManager.default.removeItem(atPath: traces) }
        #expect(result.stdout == "exec failed: No such file or directory\n" && result.status == 0, "\(result)")
        let dump = try Self.trace(in: traces)
        #expect(dump.recordCount == 600 && dump.end?.records == 600)
    }
}
