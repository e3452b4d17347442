import Foundation
import Testing
import TrailFormat
import TrailTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A folder of traces may hold anything named `*.trace`: the viewers read the traces in it, skip the rest with
/// a note, and never wait on a FIFO.
@Suite struct HostileFolderTests {
    @Test func whatIsNotATraceIsSkippedAndNamed() throws {
        let folder = Paths.temporaryDirectory("hostile")
        try writeMainTrace(to: folder + "/good.trace")
        var idle = TraceBuilder()
        idle.pid = 4343
        CallStreamTests.named(&idle)
        idle.end(records: 0)
        try idle.write(to: folder + "/idle.trace")
        #expect(mkfifo(folder + "/fifo.trace", 0o644) == 0)
        try FileManager.default.createDirectory(atPath: folder + "/folder.trace", withIntermediateDirectories: false)
        symlink("/etc/passwd", folder + "/link.trace")
        try Data("TRAILTRC".utf8).write(to: URL(fileURLWithPath: folder + "/short.trace"))
        try Data((0 ..< 4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(
            to: URL(fileURLWithPath: folder + "/noise.trace"))

        let report = try run(Paths.trail, ["report", folder])
        #expect(report.status == 0, "\(report.stderr)")
        #expect(report.stdout.contains("M.main()"))
        #expect(report.stderr.contains("skipping \(folder)/fifo.trace: not a trail trace file (not a regular file)"))
        #expect(report.stderr.contains("skipping \(folder)/link.trace: not a trail trace file (no TRAILTRC header)"))
        #expect(report.stderr.contains("skipping \(folder)/noise.trace: not a trail trace file (no TRAILTRC header)"))
        #expect(
            report.stderr.contains("skipping \(folder)/short.trace: the trace ends inside its header (8 of 64 bytes)"))
        #expect(!report.stderr.contains("folder.trace"))
        #expect(report.stderr.contains("trail: read 2 traces, 1 of them with no calls"), "\(report.stderr)")

        // Named on the command line, a FIFO is skipped the same way; with nothing else to read, that is an error.
        for verb in ["report", "replay", "flamegraph"] {
            let named = try run(Paths.trail, [verb, folder + "/fifo.trace"])
            #expect(named.status == 1)
            #expect(named.stderr.contains("fifo.trace: not a trail trace file (not a regular file)"))
        }
        // A folder with nothing readable says so.
        try FileManager.default.removeItem(atPath: folder + "/good.trace")
        try FileManager.default.removeItem(atPath: folder + "/idle.trace")
        let nothing = try run(Paths.trail, ["export", "--chrome", folder])
        #expect(nothing.status == 1)
        #expect(nothing.stderr.contains("no trace could be read"))
    }
}
