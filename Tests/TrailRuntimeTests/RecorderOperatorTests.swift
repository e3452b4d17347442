#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TrailFormat
import TrailTestSupport

/// Record mode in an operator's day: a trace that cannot be written, fork, first calls, many short threads.
@Suite struct RecorderOperatorTests {
    static var probe: String { Paths.buildDirectory + "/trail-probe" }

    static func monotonicNanoseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int(now.tv_sec) * 1_000_000_000 + now.tv_nsec
    }

    /// A trace whose folder cannot be made (its parent is a regular file) is said once, with the path and the
    /// reason, with no note about a size limit; the process ends at once with its own status. A fatal
    /// Trail.report had left the drain lock held, and exit then waited forever for the writer.
    @Test(arguments: [("fatal", Int32(70)), ("exit", Int32(0))])
    func anUnwritableTraceIsSaidOnceAndDoesNotDelayTheExit(_ end: String, _ status: Int32) throws {
        let directory = Paths.temporaryDirectory("unwritable-\(end)")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let blocker = directory + "/a-file"
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: blocker))
        let result = try run("/usr/bin/timeout", ["-s", "KILL", "20", Self.probe, "trace-unwritable", directory, end, "2000"],
                             environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": blocker + "/t.trace",
                                           "SWIFT_BACKTRACE": "enable=no"])
        let ended = Self.monotonicNanoseconds()
        #expect(result.shellStatus == status, "\(result.stderr.suffix(2000))")
        let ending = result.stdout.split(separator: "\n").first { $0.hasPrefix("ending ") }.flatMap { Int($0.dropFirst(7)) }
        #expect(ending != nil, "\(result.stdout)")
        if let ending {
            // The budget is 200 ms for tracing; the rest is the process's own teardown and waitpid on a busy box.
            #expect(ended - ending < 500_000_000, "exit took \((ended - ending) / 1_000_000) ms")
        }
        let notes = result.stderr.split(separator: "\n").filter { $0.hasPrefix("trail: ") }
        #expect(notes == ["trail: cannot write trace file \(blocker)/t.trace: Not a directory; the trace is not recorded"],
                "\(notes.prefix(5))")
        #expect(!result.stderr.contains("TRAIL_TRACE_MAX_SIZE"))
    }
}
