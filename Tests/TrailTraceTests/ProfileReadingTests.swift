import Foundation
import Testing
import TrailFormat
import TrailTestSupport

@testable import TrailTrace

/// A report's fast path (`ProfileReading`: synchronous calls straight from their records, on one thread or two)
/// prints what the reader every viewer uses prints, byte for byte, and says the same of the file; where it meets
/// records it does not follow (an async call, a tracer span, values), the reader goes on from its open calls.
@Suite struct ProfileReadingTests {
    typealias Trace = ProfileInHalvesTests

    /// The report and what reading said of each file and process.
    func read(_ path: String, fastPath: Bool, twoThreads: Bool) throws -> [String] {
        var stream = CallStream()
        stream.usesBothCores = fastPath
        stream.twoThreadsFrom = twoThreads ? 4 : .max
        let file = try TraceFile(path: path)
        var profile = Profile()
        stream.read([file], into: &profile)
        let process = profile.processes[0]
        return [
            profile.render([.total, .calls]), "\(file.truncated) \(file.complete) \(file.skippedValues.note ?? "")",
            "\(process.dropped) \(process.lastTicks) \(process.threads.map { "\($0.tid) \($0.name)" })",
        ]
    }

    func expectSameAsEveryViewersReader(_ builder: TraceBuilder, _ name: String) throws {
        let path = Paths.temporaryDirectory("profile-reading") + "/\(name).trace"
        try builder.write(to: path)
        let reference = try read(path, fastPath: false, twoThreads: false)
        #expect(reference[0].split(separator: "\n").count > 3)
        #expect(try read(path, fastPath: true, twoThreads: false) == reference)
        #expect(try read(path, fastPath: true, twoThreads: true) == reference)
    }

    @Test func synchronousCallsReportAlikeOnOneThread() throws {
        try expectSameAsEveryViewersReader(Trace.trace(pid: 21, seed: 7, threads: 3, rounds: 60), "sync")
    }

    @Test(arguments: [Trace.Interruption.async, .span, .values], [5, 70])
    func recordsTheWalkDoesNotFollowReportAlike(_ interruption: Trace.Interruption, round: Int) throws {
        let builder = Trace.trace(pid: 22, seed: 8, threads: 2, rounds: 80, interruptions: [round: interruption])
        #expect(builder.blocks.count > 20)
        try expectSameAsEveryViewersReader(builder, "\(interruption)-\(round)")
    }
}
