import Foundation
import Testing
import TrailTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Forked children and their traces as a C program meets them (Tests/Fixtures/ForkProbe): a crash in the child
/// before its trace is open, fork handlers that start no thread, children that record nothing, and children
/// racing for one name.
@Suite struct ForkedTraceTests {
    static let built = CProbe.build("ForkProbe/fork_probe.c", named: "fork-probe")

    static func probe(_ arguments: [String], traces: String, file: String = "%p.trace") throws -> ProcessResult {
        let probe = try #require(built.path, "\(built.failure)")
        // The Swift backtracer, linked in with the runtime, is not what these tests look at.
        return try run(
            probe, arguments,
            environment: [
                "TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": traces + "/" + file, "SWIFT_BACKTRACE": "enable=no",
            ])
    }

    static func traceNames(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// A child that gets a crash or termination signal while it holds malloc's lock, after its first traced call
    /// and before its writer opened the trace: the signal path opens and writes the trace with system calls
    /// only, so it dies of its signal (it hung in malloc before) and its trace holds its call.
    @Test(arguments: [SIGSEGV, SIGABRT, SIGTERM])
    func aChildCrashingInsideMallocDiesOfItsSignal(signal: Int32) throws {
        let traces = Paths.temporaryDirectory("malloc-crash")
        defer { try? FileManager.default.removeItem(atPath: traces) }
        let result = try Self.probe(["crash-in-malloc", "\(signal)", "6"], traces: traces)
        #expect(result.stdout == String(repeating: "signal \(signal)\n", count: 6), "\(result.stderr)")
        var withTheCall = 0
        for name in Self.traceNames(traces) {
            let dump = try TraceDump(path: traces + "/" + name)
            if dump.names.values.contains("ForkProbe.call() @ fork_probe.c:1"), dump.recordCount == 2 {
                withTheCall += 1
            }
        }
        #expect(withTheCall == 6, "\(Self.traceNames(traces))")
    }

    /// The fork handlers may open the parent's trace (a fork in the first 50 ms); the pruner that follows an
    /// open is started by the writer, never from inside fork.
    @Test func forkHandlersStartNoThread() throws {
        let traces = Paths.temporaryDirectory("fork-threads")
        defer { try? FileManager.default.removeItem(atPath: traces) }
        let result = try Self.probe(["fork-at-start"], traces: traces)
        #expect(result.stdout == "threads started inside fork: 0\n", "\(result.stderr)")
        #expect(Self.traceNames(traces).count == 1)
    }

    /// A child that made no traced call has no trace, even when it forks in turn (its fork handler opened one).
    @Test func aChildThatRecordsNothingForksWithoutATrace() throws {
        let traces = Paths.temporaryDirectory("fork-twice")
        defer { try? FileManager.default.removeItem(atPath: traces) }
        let result = try Self.probe(["fork-twice"], traces: traces)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.traceNames(traces).count == 1, "only the parent's: \(Self.traceNames(traces))")
    }

    /// Children let go at once take `same.N.trace` names, each whole and its own, written aside unnamed or under a
    /// hidden name; nothing is left aside.
    @Test(arguments: [false, true])
    func childrenRacingForOneNameEachGetAWholeTrace(hidden: Bool) throws {
        let traces = Paths.temporaryDirectory("name-race")
        defer { try? FileManager.default.removeItem(atPath: traces) }
        let result = try Self.probe(
            ["race-for-names", "12"] + (hidden ? ["hidden"] : []), traces: traces, file: "same.trace")
        #expect(result.stdout == "12 children exited\n", "\(result.stderr)")
        let names = Self.traceNames(traces)
        #expect(names.count == 13 && names.allSatisfy { $0.hasPrefix("same.") && $0.hasSuffix(".trace") }, "\(names)")
        var pids: Set<UInt32> = []
        for name in names {
            let dump = try TraceDump(path: traces + "/" + name)
            #expect(dump.problems.isEmpty && dump.info["pid"] == "\(dump.header.pid)", "\(name): \(dump.problems)")
            pids.insert(dump.header.pid)
        }
        #expect(pids.count == 13)
    }
}
