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

    /// The report and what reading said of the file and process (and whether its halves were joined).
    func read(_ path: String, fastPath: Bool, twoThreads: Bool, halves: Bool? = nil) throws -> [String] {
        var stream = CallStream()
        stream.usesBothCores = fastPath
        stream.twoThreadsFrom = twoThreads ? 4 : .max
        let file = try TraceFile(path: path)
        var profile = Profile()
        stream.read([file], into: &profile)
        let process = profile.processes[0]
        if let halves { #expect(file.readInHalves == halves) }
        return [
            profile.render([.total, .calls]), "\(file.truncated) \(file.complete) \(file.skippedValues.note ?? "")",
            "\(process.dropped) \(process.lastTicks) \(process.threads.map { "\($0.tid) \($0.name)" })",
        ]
    }

    /// `halves`: whether the two threads' halves are joined, or the first thread reads the second half too.
    func expectSameAsEveryViewersReader(_ builder: TraceBuilder, _ name: String, halves: Bool? = nil) throws {
        let path = Paths.temporaryDirectory("profile-reading") + "/\(name).trace"
        try builder.write(to: path)
        let reference = try read(path, fastPath: false, twoThreads: false)
        #expect(reference[0].split(separator: "\n").count > 3)
        #expect(try read(path, fastPath: true, twoThreads: false) == reference)
        #expect(try read(path, fastPath: true, twoThreads: true, halves: halves) == reference)
    }

    @Test func synchronousCallsReportAlikeOnOneThread() throws {
        try expectSameAsEveryViewersReader(Trace.trace(pid: 21, seed: 7, threads: 3, rounds: 60), "sync")
    }

    /// Recursion across the split: calls above the unknown calls are outermost unless one of those has their
    /// name, which only the join can tell (`UnknownStart.conditionalTotals`).
    @Test(arguments: [1, 2, 3, 4, 5, 6])
    func recursionAcrossTheSplitReportsAlike(seed: UInt64) throws {
        var builder = TraceBuilder()
        builder.info(exe: "/usr/bin/rec")
        for (site, text) in Trace.sites { builder.name(site, text) }
        var random = Trace.Seeded(state: seed)
        var clock: UInt64 = 1000
        var stack: [UInt64] = []
        var position: UInt64 = 0
        for _ in 0 ..< 60 {
            var records: [(UInt64, UInt64)] = []
            for _ in 0 ..< 80 {
                clock += UInt64(1 + random.next(9))
                // Deep stacks of few names, f's overloads among them: recursion everywhere.
                if stack.count < 2 + random.next(30) {
                    let site = Trace.sites[1 + random.next(3)].0
                    records.append((clock, TraceBuilder.word(.enter, site, depth: stack.count)))
                    stack.append(site)
                } else {
                    records.append((clock, TraceBuilder.word(.exit, stack.removeLast(), depth: stack.count)))
                }
            }
            builder.records(slot: 0, tid: 9, position: position, records)
            position += UInt64(records.count)
        }
        try expectSameAsEveryViewersReader(builder, "recursion-\(seed)", halves: true)
    }

    /// Every chunk starts one call shallower than the last ended (an exit lost at each chunk's end): at the split
    /// the second thread guesses one call fewer than are open, and the first reads the second half itself.
    @Test func anExitLostAtTheSplitReportsAlike() throws {
        var builder = TraceBuilder()
        builder.info(exe: "/usr/bin/lost")
        for (site, text) in Trace.sites { builder.name(site, text) }
        var clock: UInt64 = 1000
        let word = TraceBuilder.word
        builder.records(slot: 0, tid: 9, position: 0, [(clock, word(.enter, 0x1000, 0))])
        for round in 0 ..< 200 {
            clock += 10
            builder.records(
                slot: 0, tid: 9, position: UInt64(1 + 3 * round),
                [
                    (clock, word(.enter, 0x4000, 1)), (clock + 2, word(.enter, 0x5000, 2)),
                    (clock + 5, word(.exit, 0x5000, 2)),
                ])
            builder.nextBlock()
        }
        try expectSameAsEveryViewersReader(builder, "lost", halves: false)
    }

    @Test(arguments: [Trace.Interruption.async, .span], [5, 70])
    func recordsTheWalkDoesNotFollowReportAlike(_ interruption: Trace.Interruption, round: Int) throws {
        let builder = Trace.trace(pid: 22, seed: 8, threads: 2, rounds: 80, interruptions: [round: interruption])
        #expect(builder.blocks.count > 20)
        try expectSameAsEveryViewersReader(builder, "\(interruption)-\(round)", halves: false)
    }

    /// Values are checked by either half's walk (one of them cut), as one reader checks them.
    @Test(arguments: [5, 70])
    func valuesReportAlike(round: Int) throws {
        let builder = Trace.trace(pid: 23, seed: 9, threads: 2, rounds: 80, interruptions: [round: .values])
        try expectSameAsEveryViewersReader(builder, "values-\(round)", halves: true)
    }

    /// DATA without its VALUE record is noted once the thread's values were seen, which the second thread cannot
    /// tell when they were before the split: it stops there, and the first thread reads the second half.
    @Test func strayDataAfterTheSplitReportsAlike() throws {
        let builder = Trace.trace(
            pid: 24, seed: 10, threads: 2, rounds: 80, interruptions: [5: .values, 60: .strayData])
        try expectSameAsEveryViewersReader(builder, "stray-data", halves: false)
    }

    /// A VALUE record ends the last chunk before the split, and the next record, in the second half, cuts it: the
    /// halves are not joined, so that the cut value is counted as one reader counts it. Earlier, one whose DATA
    /// record starts the next chunk is whole.
    @Test func aValueWaitingAtTheSplitReportsAlike() throws {
        var builder = TraceBuilder()
        builder.info(exe: "/usr/bin/value")
        for (site, text) in Trace.sites { builder.name(site, text) }
        let word = TraceBuilder.word
        let rounds = 40
        let split = (1 + rounds) / 2
        var clock: UInt64 = 1000
        var position: UInt64 = 0
        for round in 0 ..< rounds {
            builder.nextBlock()
            var records = [
                (clock, word(.enter, 0x4000, 0)), (clock + 2, word(.enter, 0x5000, 1)),
                (clock + 5, word(.exit, 0x5000, 1)), (clock + 7, word(.exit, 0x4000, 0)),
            ]
            // Earlier, a value whose DATA record starts the next chunk.
            if round == 3 || round + 1 == split - 1 {
                records.append(ValueReadingTests.value(0x1000, .string, data: 1, 2 << 32 | 2))
            }
            if round == 4 { records.insert(ValueReadingTests.data(Array("ok".utf8)), at: 0) }
            builder.records(slot: 0, tid: 9, position: position, records)
            position += UInt64(records.count)
            clock += 10
        }
        #expect(builder.blocks.count == 1 + rounds)
        try expectSameAsEveryViewersReader(builder, "value-at-split", halves: false)
    }
}
