import Testing
import TrailFormat
import TrailTestSupport

@testable import TrailTrace

#if canImport(Glibc)
import Glibc
#endif

/// Records are held where the file holds them until a watermark lets them go: across blocks, threads
/// interleaved, at 4-byte alignment, from the mapped file and from buffers alike.
@Suite struct HeldRecordsTests {
    static let a: UInt64 = 0x2000, b: UInt64 = 0x3000, g: UInt64 = 0x4000, odd: UInt64 = 0x5000

    /// Two threads: thread 1 calls a() { b() } at 1000·i, thread 2 calls g() at 1000·j + 500. Each chunk has
    /// a few records, a watermark comes every 40 chunks (records held over two or three 4 KiB blocks), and a
    /// 28-byte NAMES chunk now and then leaves records 4 bytes off 8-byte alignment.
    static func twoThreads(calls: Int) -> TraceBuilder {
        var builder = TraceBuilder()
        builder.info(exe: "/usr/bin/probe")
        builder.name(a, "M.a() @ M/a.swift:2")
        builder.name(b, "M.b() @ M/a.swift:5")
        builder.name(g, "M.g() @ M/g.swift:1")
        var first: [(UInt64, UInt64)] = []
        var second: [(UInt64, UInt64)] = []
        for call in 0 ..< calls {
            let time = UInt64(1000 * (call + 1))
            first += [
                (time, TraceBuilder.word(.enter, a)), (time + 100, TraceBuilder.word(.enter, b, depth: 1)),
                (time + 200, TraceBuilder.word(.exit, b, depth: 1)), (time + 400, TraceBuilder.word(.exit, a)),
            ]
            second += [(time + 500, TraceBuilder.word(.enter, g)), (time + 600, TraceBuilder.word(.exit, g))]
        }
        var chunks = 0
        var position1 = 0
        var position2 = 0
        while position1 < first.count || position2 < second.count {
            let take1 = min(6, first.count - position1)
            let take2 = min(3, second.count - position2)
            if take1 > 0 {
                builder.records(
                    slot: 0, tid: 1, position: UInt64(position1), Array(first[position1 ..< position1 + take1]))
            }
            if take2 > 0 {
                builder.records(
                    slot: 1, tid: 2, position: UInt64(position2), Array(second[position2 ..< position2 + take2]))
            }
            position1 += take1
            position2 += take2
            chunks += 1
            if chunks % 7 == 0 { builder.name(odd, "M.z()") }
            // Every record written so far is older than the earliest time either thread writes next.
            if chunks % 40 == 0 {
                builder.watermark(
                    min(first[min(position1, first.count - 1)].0, second[min(position2, second.count - 1)].0) - 1)
            }
        }
        builder.watermark(.max)
        builder.end(records: UInt64(first.count + second.count))
        return builder
    }

    static func expectedReplay(calls: Int) -> String {
        var text = "# DURATION     TID     FUNCTION\n"
        for _ in 0 ..< calls {
            text += """
                           [     1] | M.a() {
                  0.100 us [     1] |   M.b();
                  0.400 us [     1] | } /* M.a() */
                  0.100 us [     2] | M.g();

                """
        }
        return text
    }

    /// Also laid out as a writer that wrapped leaves it (rotation 7): blocks in sequence order are not in file
    /// order, and the blocks released are not the ones before in the file.
    @Test(arguments: [true, false], [0, 7]) func heldRecordsSpanBlocksAndThreadsMergeInOrder(
        mapped: Bool, rotation: Int
    ) throws {
        let calls = 600
        var builder = Self.twoThreads(calls: calls)
        if rotation > 0 { builder.policy = .keepLast }
        #expect(builder.blocks.count >= 20)
        let path = Paths.temporaryDirectory("held") + "/t.trace"
        try builder.write(to: path, rotation: rotation)

        let trace = try TraceFile(path: path)
        trace.mapsFile = mapped
        let output = TextOutput()
        var replay = Replay(ReplayOptions(), output: output)
        CallStream().stream([trace], into: &replay)
        #expect(output.text == Self.expectedReplay(calls: calls))
        #expect(trace.complete && !trace.truncated)

        let again = try TraceFile(path: path)
        again.mapsFile = mapped
        var graph = FlameGraph()
        CallStream().stream([again], into: &graph)
        #expect(graph.folded(calls: true) == "M.a() \(calls)\nM.a();M.b() \(calls)\nM.g() \(calls)\n")
    }

    /// Thread 2's call starts in the first block and ends in the last; thread 1 always has a record past the
    /// latest watermark. Both hold records from older blocks at every step, so the first block in use is the
    /// lesser of two; and a held record from far back is copied rather than keeping every block since.
    @Test(arguments: [true, false]) func aRecordHeldFromFarBackDoesNotHoldTheFile(mapped: Bool) throws {
        var builder = TraceBuilder()
        builder.info(exe: "/usr/bin/probe")
        builder.name(Self.a, "M.a() @ M/a.swift:2")
        builder.name(Self.g, "M.g() @ M/g.swift:1")
        let calls = 2000
        let late = UInt64(1000 * (calls + 2))
        builder.records(slot: 1, tid: 2, position: 0, [(late, TraceBuilder.word(.enter, Self.g))])
        for call in 0 ..< calls {
            let time = UInt64(1000 * (call + 1))
            builder.records(
                slot: 0, tid: 1, position: UInt64(2 * call),
                [(time, TraceBuilder.word(.enter, Self.a)), (time + 10, TraceBuilder.word(.exit, Self.a))])
            builder.watermark(time + 5)
        }
        builder.records(slot: 1, tid: 2, position: 1, [(late + 100, TraceBuilder.word(.exit, Self.g))])
        builder.watermark(.max)
        #expect(builder.blocks.count > 30)
        let path = Paths.temporaryDirectory("held") + "/t.trace"
        try builder.write(to: path)

        let trace = try TraceFile(path: path)
        trace.mapsFile = mapped
        trace.heldBytesLimit = 16 << 10
        var graph = FlameGraph()
        CallStream().stream([trace], into: &graph)
        #expect(graph.folded(calls: true) == "M.a() \(calls)\nM.g() 1\n")
        #expect(trace.mostBlocksHeld <= 8, "blocks held at once: \(trace.mostBlocksHeld) of \(builder.blocks.count)")
    }

    /// A file that shrank after it was opened is read into buffers: a mapped page past its end would be a
    /// SIGBUS.
    @Test func aFileCutAfterOpeningIsReadWithoutAFault() throws {
        let path = Paths.temporaryDirectory("held") + "/t.trace"
        try Self.twoThreads(calls: 600).write(to: path)
        let trace = try TraceFile(path: path)
        #expect(truncate(path, off_t(TraceLayout.headerSize + 3 * 4096 + 100)) == 0)
        var graph = FlameGraph()
        CallStream().stream([trace], into: &graph)
        #expect(trace.truncated)
        #expect(graph.folded(calls: true).hasPrefix("M.a() "))
    }
}
