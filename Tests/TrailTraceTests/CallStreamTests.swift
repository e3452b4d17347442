import Foundation
import Testing
import TrailFormat
import TrailTestSupport
import TrailTrace

/// The one-pass reader on hand-made v2 files: nesting, threads merged by time, task trees, wrapped files,
/// cuts and truncation.
@Suite struct CallStreamTests {
    static let main: UInt64 = 0x1000, a: UInt64 = 0x2000, b: UInt64 = 0x3000, g: UInt64 = 0x4000, work: UInt64 = 0x5000

    static func named(_ builder: inout TraceBuilder) {
        builder.info(exe: "/usr/bin/probe")
        builder.name(main, "M.main() @ M/main.swift:1")
        builder.name(a, "M.a() @ M/a.swift:2")
        builder.name(b, "M.b() @ M/a.swift:5")
        builder.name(g, "M.g() @ M/g.swift:1")
        builder.name(work, "M.work() @ M/g.swift:9")
    }

    static func enter(_ time: UInt64, _ site: UInt64, _ depth: Int) -> (UInt64, UInt64) {
        (time, TraceBuilder.word(.enter, site, depth: depth))
    }
    static func exit(_ time: UInt64, _ site: UInt64, _ depth: Int) -> (UInt64, UInt64) {
        (time, TraceBuilder.word(.exit, site, depth: depth))
    }
    static func aux(_ time: UInt64, _ address: UInt64) -> (UInt64, UInt64) { (time, TraceBuilder.word(.aux, address)) }

    func file(_ builder: TraceBuilder, rotation: Int = 0) throws -> String {
        let path = Paths.temporaryDirectory("stream") + "/t.trace"
        try builder.write(to: path, rotation: rotation)
        return path
    }

    func replay(_ paths: [String], _ options: ReplayOptions = ReplayOptions()) throws -> String {
        let output = TextOutput()
        var replay = Replay(options, output: output)
        CallStream().stream(try paths.map { try TraceFile(path: $0) }, into: &replay)
        return output.text
    }

    func folded(_ path: String) throws -> String {
        var graph = FlameGraph()
        CallStream().stream([try TraceFile(path: path)], into: &graph)
        return graph.folded(calls: true)
    }

    @Test func nestedCallsReplayAsUftraceDoes() throws {
        var builder = TraceBuilder()
        Self.named(&builder)
        builder.records(
            slot: 0, tid: 100, position: 0,
            [
                Self.enter(1000, Self.main, 0), Self.enter(2000, Self.a, 1), Self.enter(3000, Self.b, 2),
                Self.exit(3500, Self.b, 2),
                Self.exit(4000, Self.a, 1), Self.enter(5000, Self.b, 1), Self.exit(5250, Self.b, 1),
                Self.exit(6000, Self.main, 0),
            ])
        builder.watermark(7000)
        builder.end(records: 8)
        #expect(
            try replay([file(builder)]) == """
                # DURATION     TID     FUNCTION
                           [   100] | M.main() {
                           [   100] |   M.a() {
                  0.500 us [   100] |     M.b();
                  2.000 us [   100] |   } /* M.a() */
                  0.250 us [   100] |   M.b();
                  5.000 us [   100] | } /* M.main() */

                """)
        var options = ReplayOptions()
        options.minDuration = 400
        options.filter = NamePattern("M.a*")
        #expect(
            try replay([file(builder)], options) == """
                # DURATION     TID     FUNCTION
                           [   100] | M.a() {
                  0.500 us [   100] |   M.b();
                  2.000 us [   100] | } /* M.a() */

                """)
    }

    @Test func threadsAreMergedByTimeAcrossChunks() throws {
        var builder = TraceBuilder()
        Self.named(&builder)
        // Thread 1's chunk comes first in the file, but thread 2's call ends first.
        builder.records(slot: 0, tid: 1, position: 0, [Self.enter(100, Self.a, 0), Self.exit(300, Self.a, 0)])
        builder.records(slot: 1, tid: 2, position: 0, [Self.enter(200, Self.b, 0), Self.exit(250, Self.b, 0)])
        builder.watermark(1000)
        #expect(
            try replay([file(builder)]) == """
                # DURATION     TID     FUNCTION
                  0.050 us [     2] | M.b();
                  0.200 us [     1] | M.a();

                """)
    }

    static func taskTree(detached: Bool) -> TraceBuilder {
        var builder = TraceBuilder()
        named(&builder)
        let token: UInt64 = 0x1_0000_0001
        let task: UInt64 = 0xA000
        let child: UInt64 = 0xB000
        builder.records(
            slot: 0, tid: 1, position: 0, [(100, TraceBuilder.word(.asyncEnter, g)), aux(token, task), aux(0, 0)])
        builder.watermark(120)
        builder.records(
            slot: 1, tid: 2, position: 0,
            [
                (150, TraceBuilder.word(.task, child)), aux(detached ? 0 : token, 0),
                enter(160, work, 0), exit(170, work, 0),
            ])
        builder.records(slot: 0, tid: 1, position: 3, [(300, TraceBuilder.word(.asyncExit, g)), aux(token, task)])
        builder.watermark(1000)
        return builder
    }

    @Test func childTaskWorkHangsUnderTheAsyncCallThatCreatedIt() throws {
        let path = try file(Self.taskTree(detached: false))
        #expect(try folded(path) == "M.g() 1\nM.g();M.work() 1\n")
        #expect(
            try replay([path]) == """
                # DURATION     TID     FUNCTION
                           [     1] | M.g() { [async] [task 1]
                  0.010 us [     2] |   M.work(); [child task 2]
                  0.200 us [     1] | } /* M.g() */

                """)
        // A detached task starts a tree of its own.
        #expect(try folded(file(Self.taskTree(detached: true))) == "M.g() 1\nM.work() 1\n")
    }

    /// The runtime reuses a finished task's address: a task is numbered by address and creator. A child task
    /// whose creator already returned is printed at the left, not inside whatever call printed last.
    @Test func reusedTaskAddressesAndEndedCreators() throws {
        var builder = TraceBuilder()
        Self.named(&builder)
        let first: UInt64 = 0x1_0000_0001
        let second: UInt64 = 0x1_0000_0002
        let task: UInt64 = 0xA000
        let child: UInt64 = 0xB000
        builder.records(
            slot: 0, tid: 1, position: 0,
            [
                (100, TraceBuilder.word(.asyncEnter, Self.g)), Self.aux(first, task), Self.aux(0, 0),
                (200, TraceBuilder.word(.asyncExit, Self.g)), Self.aux(first, task),
            ])
        builder.watermark(250)
        builder.records(
            slot: 1, tid: 2, position: 0,
            [
                (300, TraceBuilder.word(.task, child)), Self.aux(first, 0),
                Self.enter(310, Self.work, 0), Self.exit(320, Self.work, 0),
            ])
        builder.watermark(350)
        builder.records(
            slot: 0, tid: 1, position: 5,
            [(400, TraceBuilder.word(.asyncEnter, Self.g)), Self.aux(second, task), Self.aux(0, 0)])
        builder.watermark(420)
        builder.records(
            slot: 1, tid: 2, position: 4,
            [
                (450, TraceBuilder.word(.task, child)), Self.aux(second, 0),
                Self.enter(460, Self.work, 0), Self.exit(470, Self.work, 0),
            ])
        builder.records(
            slot: 0, tid: 1, position: 8, [(500, TraceBuilder.word(.asyncExit, Self.g)), Self.aux(second, task)])
        builder.watermark(1000)
        #expect(
            try replay([file(builder)]) == """
                # DURATION     TID     FUNCTION
                  0.100 us [     1] | M.g(); [async] [task 1]
                  0.010 us [     2] | M.work(); [child task 2]
                           [     1] | M.g() { [async]
                  0.010 us [     2] |   M.work(); [child task 3]
                  0.100 us [     1] | } /* M.g() */

                """)
    }

    @Test func aWrappedFileIsReadOldestBlockFirstWithNamesFromAnywhere() throws {
        var builder = TraceBuilder()
        builder.info(exe: "/usr/bin/probe")
        builder.policy = .keepLast
        // The oldest surviving block uses sites whose names only the newest block holds (a new lap's table).
        builder.records(
            slot: 0, tid: 7, position: 5000,
            [Self.enter(10, Self.a, 3), Self.exit(20, Self.a, 3), Self.exit(30, Self.main, 2)])
        builder.watermark(40)
        builder.nextBlock()
        builder.name(Self.a, "M.a() @ M/a.swift:2")
        builder.name(Self.main, "M.main() @ M/main.swift:1")
        builder.records(slot: 0, tid: 7, position: 5003, [Self.enter(50, Self.main, 0), Self.exit(90, Self.main, 0)])
        builder.cut(records: 5000, bytes: 80000)
        builder.watermark(100)
        builder.end(records: 5005)
        let path = try file(builder, rotation: 1)
        let trace = try TraceFile(path: path)
        #expect(trace.wrapped)
        var profile = Profile()
        CallStream().stream([trace], into: &profile)
        let calls = Dictionary(uniqueKeysWithValues: profile.entries(.name).map { ($0.name, $0.calls) })
        #expect(calls == ["M.a()": 1, "M.main()": 1])
        #expect(trace.cut?.records == 5000 && trace.cut?.policy == .keepLast)
        #expect(trace.complete && !trace.truncated)
    }

    @Test func recursionCountsOnceInTotalsAndSelfTimeExcludesCallees() throws {
        var builder = TraceBuilder()
        Self.named(&builder)
        builder.records(
            slot: 0, tid: 1, position: 0,
            [
                Self.enter(0, Self.a, 0), Self.enter(100, Self.a, 1), Self.enter(200, Self.b, 2),
                Self.exit(300, Self.b, 2),
                Self.exit(400, Self.a, 1), Self.exit(1000, Self.a, 0),
            ])
        builder.watermark(2000)
        var profile = Profile()
        CallStream().stream([try TraceFile(path: file(builder))], into: &profile)
        let entries = Dictionary(uniqueKeysWithValues: profile.entries(.name).map { ($0.name, $0) })
        #expect(entries["M.a()"]?.calls == 2)
        #expect(entries["M.a()"]?.total == 1000)
        #expect(entries["M.a()"]?.selfTime == 900)
        #expect(entries["M.b()"]?.total == 100)
    }

    /// Overloads that print alike share a row; one calling the other is not a second outermost call (an
    /// overload that forwards to another, as swift-argument-parser's test helpers do, counted its time twice).
    @Test func overloadsThatShareANameCountTheirTimeOnce() throws {
        var builder = TraceBuilder()
        Self.named(&builder)
        let intVersion: UInt64 = 0x6000
        let stringVersion: UInt64 = 0x7000
        builder.name(intVersion, "M.check(_:) @ M/c.swift:3")
        builder.name(stringVersion, "M.check(_:) @ M/c.swift:9")
        builder.records(
            slot: 0, tid: 1, position: 0,
            [
                Self.enter(0, stringVersion, 0), Self.enter(100, intVersion, 1), Self.exit(900, intVersion, 1),
                Self.exit(1000, stringVersion, 0),
                Self.enter(2000, intVersion, 0), Self.exit(2500, intVersion, 0),
            ])
        builder.watermark(3000)
        var profile = Profile()
        CallStream().stream([try TraceFile(path: file(builder))], into: &profile)
        let entries = profile.entries(.name).filter { $0.name == "M.check(_:)" }
        #expect(entries.count == 1)
        #expect(entries.first?.calls == 3)
        #expect(entries.first?.total == 1500)
        #expect(entries.first?.selfTime == 1500)
    }

    /// Unix times keep every nanosecond: a Double holds them only to the nearest 256.
    @Test func wallTimesAreExactToTheNanosecond() throws {
        struct Times: CallVisitor {
            var process: TraceProcess?
            var spans: [(UInt64, UInt64)] = []
            mutating func beginProcess(_ process: TraceProcess) { self.process = process }
            mutating func exit(_ call: CallEvent, tag: Int32) {
                spans.append((process!.wallNanoseconds(call.start), process!.wallNanoseconds(call.end)))
            }
        }
        var builder = TraceBuilder()
        builder.wallStart = 1_764_000_000_123_456_789
        Self.named(&builder)
        builder.records(slot: 0, tid: 1, position: 0, [Self.enter(1000, Self.a, 0), Self.exit(1001, Self.a, 0)])
        builder.watermark(2000)
        var times = Times()
        CallStream().stream([try TraceFile(path: file(builder))], into: &times)
        #expect(times.spans.count == 1)
        #expect(times.spans.first?.0 == 1_764_000_000_123_457_789)
        #expect(times.spans.first?.1 == 1_764_000_000_123_457_790)
    }

    /// `report --by-process`: a row per process and function, named by PID and executable.
    @Test func aReportByProcessNamesEachProcess() throws {
        var paths: [String] = []
        for (pid, exe, duration) in [
            (UInt32(101), "/usr/bin/math", UInt64(3000)), (UInt32(202), "/opt/roll", UInt64(1000)),
        ] {
            var builder = TraceBuilder()
            builder.pid = pid
            builder.info(exe: exe)
            builder.name(Self.a, "M.a() @ M/a.swift:2")
            builder.records(slot: 0, tid: pid, position: 0, [Self.enter(0, Self.a, 0), Self.exit(duration, Self.a, 0)])
            builder.watermark(duration + 1)
            paths.append(try file(builder))
        }
        var profile = Profile(byProcess: true)
        CallStream().stream(try paths.map(TraceFile.init(path:)), into: &profile)
        #expect(
            profile.render() == """
                  Total time   Self time       Calls     Average     Minimum     Maximum       PID  Executable  Function
                  ==========  ==========  ==========  ==========  ==========  ==========  ========  ==========  ====================
                    3.000 us    3.000 us           1    3.000 us    3.000 us    3.000 us       101  math        M.a()
                    1.000 us    1.000 us           1    1.000 us    1.000 us    1.000 us       202  roll        M.a()

                """)
    }

    @Test func aFileCutShortKeepsWhatCameBeforeTheCut() throws {
        var builder = TraceBuilder()
        Self.named(&builder)
        builder.records(
            slot: 0, tid: 1, position: 0,
            [Self.enter(0, Self.main, 0), Self.enter(10, Self.a, 1), Self.exit(20, Self.a, 1)])
        builder.watermark(30)
        builder.records(slot: 0, tid: 1, position: 3, [Self.enter(40, Self.b, 1), Self.exit(50, Self.b, 1)])
        let path = try file(builder)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try bytes.dropLast(20).write(to: URL(fileURLWithPath: path))
        let trace = try TraceFile(path: path)
        let output = TextOutput()
        var replay = Replay(ReplayOptions(), output: output)
        CallStream().stream([trace], into: &replay)
        #expect(trace.truncated && !trace.complete)
        #expect(output.text.contains("M.a();") && output.text.contains("} /* M.main() */ (unfinished)"))
        #expect(!output.text.contains("M.b()"))
    }

    @Test func badFilesAreNamedInTheError() throws {
        let directory = Paths.temporaryDirectory("bad")
        try Data("not a trace at all, just text".utf8).write(to: URL(fileURLWithPath: directory + "/text.trace"))
        #expect(throws: TraceFile.FormatError.self) { try TraceFile(path: directory + "/text.trace") }
        var old = Array("TRAILTRC".utf8) + le(UInt32(1)) + le(UInt32(48))
        old += [UInt8](repeating: 0, count: 100)
        try Data(old).write(to: URL(fileURLWithPath: directory + "/old.trace"))
        do {
            _ = try TraceFile(path: directory + "/old.trace")
            Issue.record("a v1 file was accepted")
        } catch let error as TraceFile.FormatError {
            #expect(error.description.hasPrefix(directory + "/old.trace: trace format version 1"))
        }
    }

    @Test func severalProcessesGetAPidColumn() throws {
        var first = TraceBuilder()
        var second = TraceBuilder()
        Self.named(&first)
        Self.named(&second)
        second.pid = 4343
        second.wallStart += 1000
        first.records(slot: 0, tid: 1, position: 0, [Self.enter(0, Self.a, 0), Self.exit(10, Self.a, 0)])
        second.records(slot: 0, tid: 2, position: 0, [Self.enter(0, Self.b, 0), Self.exit(10, Self.b, 0)])
        var options = ReplayOptions()
        options.showPid = true
        #expect(
            try replay([file(first), file(second)], options) == """
                # DURATION      PID      TID     FUNCTION
                  0.010 us     4242 [     1] | M.a();
                  0.010 us     4343 [     2] | M.b();

                """)
    }
}
