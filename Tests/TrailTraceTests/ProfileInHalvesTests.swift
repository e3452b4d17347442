import Foundation
import Testing
import TrailFormat
import TrailTestSupport

@testable import TrailTrace

/// A report read on two threads (`ProfileInHalves`) prints what one thread's reading prints, byte for byte:
/// several processes and threads, recursion, overloads sharing a name, lost exits, dropped records, a wrapped
/// file, one cut short, and a first half with async calls (read by one thread after all).
@Suite struct ProfileInHalvesTests {
    static let sites: [(UInt64, String)] = [
        (0x1000, "M.main() @ M/main.swift:1"), (0x2000, "M.f(_:) @ M/f.swift:1"), (0x3000, "M.f(_:) @ M/f.swift:7"),
        (0x4000, "M.g() @ M/g.swift:1"), (0x5000, "M.h() @ M/g.swift:9"),
    ]

    /// A seeded generator, so a failure is the same trace every time.
    struct Seeded {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    /// Records a report's fast path does not follow (`SyncCallWalk`), put amid the first thread's records.
    enum Interruption {
        /// An async call that starts and returns.
        case async
        /// A tracer span (its SPAN chunks come before the records) inside the open calls.
        case span
        /// A value of the open call, then one cut short (one of its two DATA records missing).
        case values
        /// A DATA record without its VALUE record.
        case strayData
    }

    /// Threads calling nested functions in rounds of chunks, each round closed by a watermark, over many blocks;
    /// `interruptions` by round.
    static func trace(
        pid: UInt32, seed: UInt64, threads: Int, rounds: Int, asyncFirst: Bool = false,
        interruptions: [Int: Interruption] = [:]
    ) -> TraceBuilder {
        var builder = TraceBuilder()
        builder.pid = pid
        builder.info(exe: "/usr/bin/probe\(pid)")
        for (site, text) in sites { builder.name(site, text) }
        var random = Seeded(state: seed)
        var clock: UInt64 = 1000
        var stacks = [[UInt64]](repeating: [], count: threads)
        var positions = [UInt64](repeating: 0, count: threads)
        if asyncFirst {
            let word = { (kind: TraceRecord.Kind, site: UInt64) in TraceBuilder.word(kind, site) }
            builder.records(
                slot: 0, tid: 100, position: 0,
                [
                    (clock, word(.asyncEnter, 0x4000)), (0x1_0000_0001, word(.aux, 0xA000)), (0, word(.aux, 0)),
                    (clock + 5, word(.asyncExit, 0x4000)), (0x1_0000_0001, word(.aux, 0xA000)),
                ])
            positions[0] = 5
            clock += 10
        }
        for round in 0 ..< rounds {
            for thread in 0 ..< threads {
                var records: [(UInt64, UInt64)] = []
                for _ in 0 ..< 40 + random.next(60) {
                    clock += UInt64(1 + random.next(20))
                    let depth = stacks[thread].count
                    let choice = random.next(100)
                    if choice < 2 {
                        records.append((clock, TraceBuilder.word(.dropped, UInt64(1 + random.next(3)))))
                    } else if choice < 50 && depth < 12 || depth == 0 {
                        let site = sites[random.next(sites.count)].0
                        stacks[thread].append(site)
                        records.append((clock, TraceBuilder.word(.enter, site, depth: depth)))
                    } else if choice < 53 {
                        stacks[thread].removeLast()  // its exit is lost: a later record's depth shows it
                    } else {
                        let site = stacks[thread].removeLast()
                        records.append((clock, TraceBuilder.word(.exit, site, depth: depth - 1)))
                    }
                }
                if thread == 0, let interruption = interruptions[round] {
                    let time = records[records.count / 2].0
                    let token = 0x1_0000_0000 + UInt64(round)
                    if case .span = interruption {
                        for phase in [UInt32(1), 2] { builder.chunk(.span, le(token) + le(phase) + le(UInt32(0))) }
                    }
                    records.insert(
                        contentsOf: Self.interrupting(interruption, at: time, token: token),
                        at: records.count / 2 + 1)
                }
                builder.records(
                    slot: UInt32(thread), tid: UInt32(100 + thread), position: positions[thread], records)
                positions[thread] += UInt64(records.count)
                if round % 7 == thread {
                    builder.thread(slot: UInt32(thread), tid: UInt32(100 + thread), name: "t\(round)")
                }
            }
            builder.watermark(clock)
        }
        builder.end(records: positions.reduce(0, +))
        return builder
    }

    static func interrupting(_ interruption: Interruption, at time: UInt64, token: UInt64) -> [(UInt64, UInt64)] {
        let word = { (kind: TraceRecord.Kind, site: UInt64) in TraceBuilder.word(kind, site) }
        switch interruption {
        case .async, .span:
            return [
                (time, word(.asyncEnter, 0x4000)), (token, word(.aux, 0xA000)), (0, word(.aux, 0)),
                (time, word(.asyncExit, 0x4000)), (token, word(.aux, 0xA000)),
            ]
        case .values:
            return [
                ValueReadingTests.value(0x1000, .string, data: 1, 2 << 32 | 2),
                ValueReadingTests.data(Array("ok".utf8)),
                ValueReadingTests.value(0x2000, .string, data: 2, 20 << 32 | 20),
                ValueReadingTests.data(Array("0123456789abcd".utf8)),
            ]
        case .strayData:
            return [ValueReadingTests.data(Array("stray".utf8))]
        }
    }

    func report(_ paths: [String], byProcess: Bool, twoThreads: Bool) throws -> (String, [TraceFile]) {
        var stream = CallStream()
        stream.usesBothCores = twoThreads
        stream.twoThreadsFrom = 4
        let files = try paths.map { try TraceFile(path: $0) }
        var profile = Profile(byProcess: byProcess)
        stream.read(files, into: &profile)
        return (profile.render([.total, .calls]), files)
    }

    func expectSameReport(_ paths: [String]) throws {
        for byProcess in [false, true] {
            let (one, oneFiles) = try report(paths, byProcess: byProcess, twoThreads: false)
            let (two, twoFiles) = try report(paths, byProcess: byProcess, twoThreads: true)
            #expect(two == one)
            #expect(one.split(separator: "\n").count > 3)
            for (a, b) in zip(oneFiles, twoFiles) {
                #expect(a.truncated == b.truncated && a.complete == b.complete && a.endDropped == b.endDropped)
            }
        }
    }

    func write(_ builder: TraceBuilder, _ name: String, rotation: Int = 0) throws -> String {
        let path = Paths.temporaryDirectory("halves") + "/\(name).trace"
        try builder.write(to: path, rotation: rotation)
        return path
    }

    @Test func severalProcessesAndThreadsReportAlikeOnTwoThreads() throws {
        let first = Self.trace(pid: 11, seed: 1, threads: 3, rounds: 120)
        #expect(first.blocks.count > 20)
        try expectSameReport([
            write(first, "a"), write(Self.trace(pid: 12, seed: 2, threads: 2, rounds: 90), "b"),
        ])
    }

    @Test func wrappedCutShortAndAsyncFilesReportAlike() throws {
        var wrapped = Self.trace(pid: 13, seed: 3, threads: 2, rounds: 80)
        wrapped.policy = .keepLast
        try expectSameReport([write(wrapped, "wrapped", rotation: 5)])
        let cut = try write(Self.trace(pid: 14, seed: 4, threads: 3, rounds: 80), "cut")
        let size = try FileManager.default.attributesOfItem(atPath: cut)[.size] as! Int
        try FileHandle(forWritingTo: URL(fileURLWithPath: cut)).truncate(atOffset: UInt64(size * 2 / 3 + 100))
        try expectSameReport([cut])
        try expectSameReport([write(Self.trace(pid: 15, seed: 5, threads: 2, rounds: 80, asyncFirst: true), "async")])
    }
}
