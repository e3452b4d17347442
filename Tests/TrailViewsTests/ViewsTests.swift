import Foundation
import Testing
import TrailTestSupport
import TrailTrace
import TrailViews

/// `graph`, `info` and `report --diff` on small hand-made traces whose every time is known, against output
/// checked by hand: `c` takes 10 us a call in the old run and 20 us in the new one.
@Suite struct ViewsTests {
    typealias Call = SmallTrace.Call

    /// main → a → b → c, c; a → c; main → b → c, c, each call starting 1 us after the one before; `c` lasts
    /// `c` us. With `d`, main ends with a half-microsecond call of d.
    static func run(c: UInt64, d: Bool = false) -> SmallTrace {
        var clock: UInt64 = 0
        func tick(_ microseconds: UInt64 = 1) -> UInt64 {
            clock += microseconds * 1000
            return clock
        }
        func leaf() -> Call {
            let start = tick()
            return Call(name: "M.c()", start: start, end: tick(c))
        }
        func b() -> Call {
            let start = tick()
            let calls = [leaf(), leaf()]
            return Call(name: "M.b()", start: start, end: tick(), calls: calls)
        }
        let start = clock
        let aStart = tick()
        let aCalls = [b(), leaf()]
        let a = Call(name: "M.a()", start: aStart, end: tick(), calls: aCalls)
        var mainCalls = [a, b()]
        if d {
            let dStart = clock + 500
            clock += 1000
            mainCalls.append(Call(name: "M.d()", start: dStart, end: clock))
        }
        return SmallTrace(calls: [Call(name: "M.main()", start: start, end: tick(), calls: mainCalls)])
    }

    func graph(_ function: String, _ path: String, _ configure: (inout GraphText) -> Void = { _ in }) throws -> String {
        var graph = CallGraph(function: function)
        CallStream().stream([try TraceFile(path: path)], into: &graph)
        var text = GraphText()
        configure(&text)
        return text.render(graph)
    }

    @Test func graphOfTheRootShowsEveryPathAsUftraceDoes() throws {
        let path = try Self.run(c: 10).write("old.trace")
        let expected = """
            # Function Call Graph for 'M.main()'
            =============== BACKTRACE ===============
             backtrace #0: hit 1, time 62.000 us
               [0] M.main()

            ========== FUNCTION CALL GRAPH ==========
            # TOTAL TIME   SELF TIME   FUNCTION
               62.000 us    3.000 us : (1) M.main()
               36.000 us    3.000 us :  +-(1) M.a()
               23.000 us    3.000 us :  |  +-(1) M.b()
               20.000 us   20.000 us :  |  | (2) M.c()
                                     :  |  | \("")
               10.000 us   10.000 us :  |  +-(1) M.c()
                                     :  | \("")
               23.000 us    3.000 us :  +-(1) M.b()
               20.000 us   20.000 us :    (2) M.c()

            """
        let actual = try graph("M.main()", path)
        #expect(Transcript.firstDifference(actual, expected) == nil, "\(actual)")
        let shallow = try graph("M.main()", path) {
            $0.fields = [.total]
            $0.maxDepth = 2
        }
        #expect(
            shallow.hasSuffix(
                """
                # TOTAL TIME   FUNCTION
                   62.000 us : (1) M.main()
                   36.000 us :  +-(1) M.a()
                             :  | \("")
                   23.000 us :  +-(1) M.b()

                """), "\(shallow)")
    }

    @Test func graphOfALeafListsEachBacktraceWithItsHits() throws {
        let path = try Self.run(c: 10).write("old.trace")
        let expected = """
            # Function Call Graph for 'M.c()'
            =============== BACKTRACE ===============
             backtrace #0: hit 2, time 20.000 us
               [0] M.main()
               [1] M.a()
               [2] M.b()
               [3] M.c()

             backtrace #1: hit 1, time 10.000 us
               [0] M.main()
               [1] M.a()
               [2] M.c()

             backtrace #2: hit 2, time 20.000 us
               [0] M.main()
               [1] M.b()
               [2] M.c()

            ========== FUNCTION CALL GRAPH ==========
            # TOTAL TIME   SELF TIME   FUNCTION
               50.000 us   50.000 us : (5) M.c()

            """
        let actual = try graph("M.c()", path)
        #expect(Transcript.firstDifference(actual, expected) == nil, "\(actual)")
        // A glob naming two functions gives a graph for each, in the order of their first calls.
        let both = try graph("M.[bc]()", path)
        #expect(both.components(separatedBy: "# Function Call Graph for").count == 3)
        #expect(both.range(of: "'M.b()'")!.lowerBound < both.range(of: "'M.c()'")!.lowerBound)
        #expect(try graph("M.nothing()", path).isEmpty)
    }

    func profile(_ path: String) throws -> Profile {
        var profile = Profile()
        CallStream().read([try TraceFile(path: path)], into: &profile)
        return profile
    }

    @Test func diffPutsTheLargestRegressionFirst() throws {
        let folder = Paths.temporaryDirectory("diff")
        let old = try profile(try Self.run(c: 10).write("old.trace", folder: folder))
        let new = try profile(try Self.run(c: 20, d: true).write("new.trace", folder: folder))
        // Old: main 62/3 us, a 36/3, b 2 calls 46/6, c 5 calls 50/50. New: main 113/3.5 (d's gaps), a 66/3,
        // b 86/6, c 100/100, d 0.5/0.5.
        let expected = """
            #
            # trail report --diff
            #  old: old.trace
            #  new: new.trace
            #
                     Total time (old, new, change)          Self time (old, new, change)              Calls (old, new, change)  Function
              ====================================  ====================================  ====================================  ====================
               62.000 us  113.000 us    +51.000 us    3.000 us    3.500 us     +0.500 us           1           1            +0  M.main()
               50.000 us  100.000 us    +50.000 us   50.000 us  100.000 us    +50.000 us           5           5            +0  M.c()
               46.000 us   86.000 us    +40.000 us    6.000 us    6.000 us     +0.000 us           2           2            +0  M.b()
               36.000 us   66.000 us    +30.000 us    3.000 us    3.000 us     +0.000 us           1           1            +0  M.a()
                       -    0.500 us     +0.500 us           -    0.500 us     +0.500 us           -           1            +1  M.d()

            """
        let actual = ProfileDiff(old: old, new: new).render(oldName: "old.trace", newName: "new.trace")
        #expect(Transcript.firstDifference(actual, expected) == nil, "\(actual)")
        let bigTime = ProfileDiff(old: old, new: new, threshold: .init("35us"))
        #expect(bigTime.rows.map(\.name) == ["M.main()", "M.c()", "M.b()"])
        // 10 us more a call of c is 100% for c, 82% for main, 87% for b, 83% for a; d is new.
        let bigShare = ProfileDiff(old: old, new: new, threshold: .init("85%"))
        #expect(bigShare.rows.map(\.name) == ["M.c()", "M.b()", "M.d()"])
        #expect(ProfileDiff.Threshold("5") == nil && ProfileDiff.Threshold("x%") == nil)
    }

    @Test func infoSaysWhatTheTraceHolds() throws {
        let path = try Self.run(c: 10).write("old.trace")
        var summary = TraceSummary()
        CallStream().stream([try TraceFile(path: path)], into: &summary)
        let facts = try #require(summary.facts.first)
        // 1_700_000_000 s is 2023-11-14 22:13:20 UTC; 0x17979cfe362a0000 its nanoseconds, 0x1092 the pid 4242.
        let expected = """
            # trace           : \(path)
            # program         : /usr/bin/small
            # app             : small
            # host            : test
            # pid             : 4242
            # started         : 2023-11-14 22:13:20.000000 UTC
            # duration        : 62.000 us
            # state           : complete
            # calls           : 9
            # records         : 18
            # threads         : 1: 4242 main
            # tasks           : 0
            # dropped records : 0
            # size            : \(facts.fileSize) B, no size limit
            # trace id        : 17979cfe362a000000001092afd071e5
            # parent          : none
            # format version  : 2

            """
        let actual = InfoText.render(facts)
        #expect(Transcript.firstDifference(actual, expected) == nil, "\(actual)")
        #expect(facts.fileSize > 64 && facts.fileSize < 4096)
        var recorded = facts
        recorded.info["cmdline"] = "/usr/bin/small --fast"
        recorded.info["build_id"] = "0c6cd888"
        recorded.records = nil
        let rows = InfoText.render(recorded)
        #expect(rows.contains("# program         : /usr/bin/small\n# command line    : /usr/bin/small --fast\n"))
        #expect(rows.contains("# app             : small\n# build id        : 0c6cd888\n"))
        #expect(rows.contains("# records         : (no end record)\n"))
        #expect(InfoText.bytes(1536) == "1.5 KiB" && InfoText.bytes(3 << 30) == "3.0 GiB")
    }
}
