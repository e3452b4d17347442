import Foundation
import Testing
import TrailFormat
import TrailTestSupport

/// Record mode: the v2 trace file the runtime writes, walked by TraceDump (independent of the viewers).
@Suite struct RecorderTests {
    /// Runs the probe in record mode and reads the one trace it wrote into `file`.
    static func record(
        _ mode: ProbeMode, _ rest: [any ProbeArgument] = [], _ environment: [String: String] = [:], file: String
    ) throws -> TraceDump {
        let directory = (file as NSString).deletingLastPathComponent
        try run(
            RuntimeProbe.path, RuntimeProbe.arguments(mode, directory, rest),
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": file].merging(environment) { $1 }, check: true)
        let dump = try TraceDump(path: file)
        #expect(dump.problems.isEmpty, "\(dump.problems.prefix(5))")
        return dump
    }

    @Test func asyncCallsThatHopThreadsHaveMatchedExits() throws {
        let dump = try Self.record(.async, [20], file: Paths.temporaryDirectory("async") + "/probe.trace")
        #expect(dump.end?.dropped == 0)
        // Every async entry token has exactly one exit with the same token; some resumed on another thread.
        var entries: [UInt64: UInt32] = [:]
        var exits: [UInt64: UInt32] = [:]
        for chunk in dump.chunks.map(\.slot).uniqued() {
            let records = dump.records(slot: chunk)
            for (index, record) in records.enumerated() where record.kind == .asyncEnter || record.kind == .asyncExit {
                #expect(records[index + 1].kind == .aux)
                if record.kind == .asyncEnter {
                    #expect(records[index + 2].kind == .aux)
                    entries[records[index + 1].time] = chunk
                } else {
                    exits[records[index + 1].time] = chunk
                }
            }
        }
        #expect(entries.count == 60)
        #expect(Set(entries.keys) == Set(exits.keys))
        #expect(entries.contains { exits[$0.key] != $0.value }, "some async call resumed on another thread")
        #expect(dump.watermarks.count >= 1)
    }

    /// fatalError traps: SIGILL (ud2) on x86_64, SIGTRAP (brk) on arm64.
    static let fatalErrorStatus: Int32 = {
        #if arch(x86_64)
        return 132
        #else
        return 133
        #endif
    }()

    /// Without Trail.bootstrap, a crash, `kill`, Ctrl-C or a closed pipe ends the process without atexit: the
    /// trace still gets the records the rings held (the last moments), and the process dies as it would have.
    @Test(
        arguments: [
            (.segv, 139), (.abort, 134), (.fatal, RecorderTests.fatalErrorStatus), (.sigterm, 143), (.sigint, 130),
            (.pipe, 141),
        ] as [(TraceThenEnd, Int32)])
    func anEndWithoutExitKeepsTheLastCalls(_ method: TraceThenEnd, _ status: Int32) throws {
        let calls = 300_000
        let directory = Paths.temporaryDirectory("end-\(method)")
        let file = directory + "/end.trace"
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.traceThen, directory, method, calls),
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": file, "SWIFT_BACKTRACE": "enable=no"])
        #expect(result.shellStatus == status, "\(result.stderr)")
        #expect(!result.stdout.contains("not ended"))
        let dump = try TraceDump(path: file)
        #expect(dump.problems.isEmpty, "\(dump.problems.prefix(5))")
        #expect(dump.allRecords.filter { $0.kind == .enter }.count == calls, "every call, the last ones too")
        #expect(dump.end == nil, "no END: the process did not exit")
        let report = try run(Paths.trail, ["report", file])
        #expect(report.stdout.contains("\(calls)    ") && report.stdout.contains("Probe.nothing()"), "\(report.stdout)")
        #expect(report.stderr.contains("has no end record"))
    }

    /// A folder of traces from a suite whose exit tests crash on purpose: up to three unended traces are each
    /// named, more are said in one line.
    @Test func manyUnendedTracesAreSaidInOneLine() throws {
        let directory = Paths.temporaryDirectory("unended")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = directory + "/runs/a.trace"
        try FileManager.default.createDirectory(atPath: directory + "/runs", withIntermediateDirectories: true)
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.traceThen, directory, TraceThenEnd.segv, 100),
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": first, "SWIFT_BACKTRACE": "enable=no"])
        #expect(result.shellStatus == 139, "\(result.stderr)")
        for name in ["b", "c"] {
            try FileManager.default.copyItem(atPath: first, toPath: directory + "/runs/\(name).trace")
        }
        let few = try run(Paths.trail, ["report", directory + "/runs"]).stderr
        #expect(few.components(separatedBy: "has no end record").count == 4, "\(few)")
        for name in ["d", "e"] {
            try FileManager.default.copyItem(atPath: first, toPath: directory + "/runs/\(name).trace")
        }
        let many = try run(Paths.trail, ["report", directory + "/runs"]).stderr
        #expect(!many.contains("has no end record"), "\(many)")
        #expect(many.contains("trail: 5 traces have no end record"), "\(many)")
        #expect(many.contains("and 2 more; showing what is there"), "\(many)")
    }

    /// A signal after the trace is finished (a SIGPIPE as stdio flushes at exit) neither opens a second trace
    /// nor writes the first again: the process still dies of it.
    @Test func aSignalAfterTheTraceIsFinishedOpensNoSecondTrace() throws {
        let directory = Paths.temporaryDirectory("after-exit")
        let file = directory + "/t.trace"
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.exitThenSignal, directory, 5000),
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": file, "SWIFT_BACKTRACE": "enable=no"])
        #expect(result.shellStatus == 141, "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["t.trace"])
        let dump = try TraceDump(path: file)
        #expect(dump.problems.isEmpty, "\(dump.problems.prefix(5))")
        #expect(dump.end != nil, "finished at exit, before the signal")
        #expect(dump.allRecords.filter { $0.kind == .enter }.count == 5000)
    }

    /// With the Swift backtracer on, the guard hands the crash to it: its report comes out whole, after the trace,
    /// and the trace writer's thread lets itself be paused, so the backtracer does not warn that it could not.
    @Test func aCrashStillReachesTheSwiftBacktracer() throws {
        let directory = Paths.temporaryDirectory("end-backtracer")
        let file = directory + "/end.trace"
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.traceThen, directory, TraceThenEnd.segv, 50000),
            environment: [
                "TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": file,
                "SWIFT_BACKTRACE": "enable=yes,interactive=no,color=no",
            ])
        #expect(result.shellStatus == 139, "\(result.stderr)")
        #expect(result.stderr.contains("Backtrace took"), "\(result.stderr.suffix(2000))")
        #expect(!result.stderr.contains("failed to suspend thread"), "\(result.stderr.prefix(2000))")
        #expect(try TraceDump(path: file).allRecords.filter { $0.kind == .enter }.count == 50000)
    }

    /// A program that handles or ignores a termination signal keeps its way: nothing is installed over it.
    @Test func aProgramsOwnSignalHandlingIsLeftAlone() throws {
        let directory = Paths.temporaryDirectory("ignored")
        let result = try run(
            "/bin/sh",
            ["-c", "trap '' TERM; exec \"$0\" \"$@\"", RuntimeProbe.path]
                + RuntimeProbe.arguments(.traceThen, directory, TraceThenEnd.sigterm, 1000),
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": directory + "/t.trace"])
        // SIGTERM ignored from the start stays ignored: the probe sleeps, prints and exits normally.
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("not ended"))
        #expect(try TraceDump(path: directory + "/t.trace").end != nil)
    }

    /// fib(30) makes 2,692,537 calls: as many, at default settings, lose nothing.
    @Test func aFibSizedRunDropsNothingAtDefaults() throws {
        let calls = 2_692_537
        let dump = try Self.record(.calls, [calls], file: Paths.temporaryDirectory("fib") + "/fib.trace")
        #expect(dump.allRecords.filter { $0.kind == .enter }.count == calls)
        #expect(dump.recordCount == 4 * calls)  // TASK, AUX, ENTER, EXIT: the probe's top level runs in a task
        #expect(dump.end?.records == UInt64(4 * calls))
        #expect(dump.end?.dropped == 0)
        #expect(dump.cut?.records == 0)
        #expect(dump.threads.values.allSatisfy { $0.dropped == 0 })
    }

    @Test func keepLastHoldsTheLastRecordsAndSaysWhatWasCut() throws {
        let calls = 500_000
        let put = UInt64(4 * calls)
        let dump = try Self.record(
            .calls, [calls], ["TRAIL_TRACE_MAX_SIZE": "4M"],
            file: Paths.temporaryDirectory("last") + "/last.trace")
        #expect(dump.fileSize <= 4 << 20)
        #expect(dump.header.policy == TraceLayout.Policy.keepLast.rawValue && dump.header.maxBlocks > 0)
        let kept = UInt64(dump.recordCount)
        let cut = try #require(dump.cut)
        #expect(cut.policy == 1 && cut.records > 0)
        #expect(cut.records + kept == put, "cut \(cut.records) + kept \(kept)")
        #expect(dump.end?.records == put)
        // The kept records are the last ones: contiguous positions up to the last record put.
        let main = try #require(dump.chunks.first?.slot)
        let chunks = dump.chunks.filter { $0.slot == main }
        #expect(chunks.last.map { $0.position + UInt64($0.records.count) } == put)
        #expect((chunks.first?.position ?? 0) > 0)
        #expect(
            dump.names.values.contains("Probe.nothing() @ Probe/main.swift:120"), "names written again after a wrap")
        #expect(dump.info["pid"] != nil && dump.sequences.first ?? 0 > 0)
    }

    @Test func keepFirstHoldsTheFirstRecords() throws {
        let calls = 500_000
        let put = UInt64(4 * calls)
        let dump = try Self.record(
            .calls, [calls], ["TRAIL_TRACE_MAX_SIZE": "4M", "TRAIL_TRACE_KEEP": "first"],
            file: Paths.temporaryDirectory("first") + "/first.trace")
        #expect(dump.fileSize <= 4 << 20)
        #expect(dump.header.policy == TraceLayout.Policy.keepFirst.rawValue)
        let kept = UInt64(dump.recordCount)
        let cut = try #require(dump.cut)
        #expect(cut.policy == 2 && cut.records + kept == put)
        #expect(dump.chunks.first?.position == 0)
        #expect(dump.sequences == Array(0 ..< UInt64(dump.sequences.count)))
        #expect(dump.end != nil, "room kept for the final chunks")
    }

    /// Parent tokens: async let, group children and Task {} inherit the creating call's token; detached starts anew.
    @Test func childTasksNameTheAsyncCallThatCreatedThem() throws {
        let dump = try Self.record(.tasks, file: Paths.temporaryDirectory("tasks") + "/tasks.trace")
        var calls: [String: (token: UInt64, parent: UInt64)] = [:]
        var taskParents: [UInt64] = []
        for slot in Set(dump.chunks.map(\.slot)) {
            let records = dump.records(slot: slot)
            for (index, record) in records.enumerated() {
                if record.kind == .asyncEnter, let name = dump.names[record.address] {
                    calls[String(name.split(separator: " ")[0])] = (records[index + 1].time, records[index + 2].time)
                } else if record.kind == .task {
                    #expect(records[index + 1].kind == .aux)
                    taskParents.append(records[index + 1].time)
                }
            }
        }
        let family = try #require(calls["Probe.family()"])
        #expect(family.parent == 0)
        #expect(calls["Probe.child.asyncLet()"]?.parent == family.token)
        #expect(calls["Probe.child.group()"]?.parent == family.token)
        #expect(calls["Probe.child.task()"]?.parent == family.token)
        #expect(calls["Probe.child.detached()"]?.parent == 0)
        // Each child's synchronous work hangs under that child's call.
        let children = Set(calls.filter { $0.key.hasPrefix("Probe.child") }.map(\.value.token))
        #expect(taskParents.count == 4 && Set(taskParents) == children)
    }

    /// A crash flushes the rings into the trace, which bootstrap placed in the log folder: readable, without END.
    @Test func aCrashLeavesAReadableTraceBesideTheLog() throws {
        let directory = Paths.temporaryDirectory("crash")
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.crash, directory, CrashMethod.traced, 10),
            environment: ["TRAIL_TRACE": "record"])
        #expect(result.signal == SIGSEGV)
        let found = traces(in: directory)
        #expect(found.count == 1, "\(found)")
        let dump = try TraceDump(path: try #require(found.first))
        #expect(dump.problems.isEmpty, "\(dump.problems.prefix(5))")
        #expect(dump.end == nil)
        #expect(dump.info["app"] == "probe")
        #expect(
            dump.allRecords.contains {
                $0.kind == .enter && dump.names[$0.address] == "Probe.traced() @ Probe/main.swift:60"
            })
    }

    /// trail_current_span: a synchronous call's span is its slot and ENTER position; an async call's, its token;
    /// both XOR the process's salt (Docs/trace-format.md, "Span and trace ids"), written out again here.
    @Test func spanIdsNameTheInnermostCall() throws {
        let directory = Paths.temporaryDirectory("span")
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.span, directory),
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": directory + "/span.trace"], check: true)
        let dump = try TraceDump(path: directory + "/span.trace")
        let lines = result.stdout.split(separator: "\n").map { $0.split(separator: " ") }
        let sync = try #require(lines.first { $0.first == "sync" })
        let async = try #require(lines.first { $0.first == "async" })
        let enter = try #require(
            dump.chunks.flatMap { chunk in chunk.records.enumerated().map { (chunk, $0.offset, $0.element) } }
                .first { $0.2.kind == .enter })
        func mix(_ value: UInt64) -> UInt64 {
            var z = value
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            return z ^ (z >> 31)
        }
        let host = (dump.info["host"] ?? "").utf8.reduce(UInt32(0x811c_9dc5)) { ($0 ^ UInt32($1)) &* 0x0100_0193 }
        let salt = mix(dump.header.wallNanoseconds) ^ mix(UInt64(dump.header.pid) << 32 | UInt64(host))
        #expect(UInt64(sync[2]) == (UInt64(enter.0.slot + 1) << 44 | (enter.0.position + UInt64(enter.1))) ^ salt)
        let token = try #require(
            dump.allRecords.indices.first { dump.allRecords[$0].kind == .asyncEnter }.map {
                dump.allRecords[$0 + 1].time
            })
        #expect(UInt64(async[2]) == (1 << 63 | token) ^ salt)
        // The trace id: wall-clock start, then pid, big-endian.
        let id = sync[4].split(separator: ",").map { UInt8($0, radix: 16)! }
        #expect(id.prefix(8).reduce(0) { $0 << 8 | UInt64($1) } == dump.header.wallNanoseconds)
        #expect(id[8 ..< 12].reduce(0) { $0 << 8 | UInt32($1) } == dump.header.pid)
        #expect(sync[4] == async[4])
        #expect(lines.contains { $0 == ["none", "none"] })
    }
}

extension Sequence where Element: Hashable {
    func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
