import Foundation
import Testing
import TrailFormat
import TrailTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// One trace per process: where it goes, that no process replaces another's, and pruning of old ones.
@Suite struct TracePathTests {
    @Test func patternsExpandRelativeToTheWorkingFolder() throws {
        let directory = Paths.temporaryDirectory("pattern")
        try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.calls, directory, 10),
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": "made/%e-%p-%h-%t-%%.trace"],
            directory: directory, check: true)
        let found = traces(in: directory + "/made")
        #expect(found.count == 1)
        let name = try #require(found.first.map { ($0 as NSString).lastPathComponent })
        let dump = try TraceDump(path: directory + "/made/" + name)
        var hostBytes = [CChar](repeating: 0, count: 256)
        gethostname(&hostBytes, 255)
        let host = String(decoding: hostBytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let seconds = dump.header.wallNanoseconds / 1_000_000_000
        #expect(name == "trail-probe-\(dump.header.pid)-\(host)-\(seconds)-%.trace")
        #expect(dump.info["exe"]?.hasSuffix("/trail-probe") == true && dump.info["pid"] == "\(dump.header.pid)")
        #expect(dump.info["host"] == host && dump.info["app"] == "trail-probe")
    }

    @Test func byDefaultEachProcessGetsItsOwnTraceInTrailTraces() throws {
        let directory = Paths.temporaryDirectory("default")
        for _ in 0 ..< 2 {
            try run(
                RuntimeProbe.path, RuntimeProbe.arguments(.calls, directory, 10),
                environment: ["TRAIL_TRACE": "record"], directory: directory,
                check: true)
        }
        let found = traces(in: directory + "/trail-traces")
        #expect(found.count == 2)
        #expect(found.allSatisfy { ($0 as NSString).lastPathComponent.hasPrefix("trail-probe-") })
    }

    /// A program that bootstraps a log folder gets its trace there, and leaves no empty `trail-traces/` in
    /// the folder it was started from.
    @Test func aBootstrappedTraceLeavesNoDefaultFolderBehind() throws {
        let directory = Paths.temporaryDirectory("bootstrapped")
        let logs = directory + "/logs"
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.jsonSpans, logs), environment: ["TRAIL_TRACE": "record"],
            directory: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/trail-traces"))
        #expect(traces(in: logs).count == 1)
    }

    @Test func aSecondProcessNeverOverwritesTheFirstsTrace() throws {
        let directory = Paths.temporaryDirectory("twice")
        for count in [10, 20] {
            try run(
                RuntimeProbe.path, RuntimeProbe.arguments(.calls, directory, count),
                environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": directory + "/same.trace"], check: true)
        }
        #expect(try TraceDump(path: directory + "/same.trace").recordCount == 40)
        #expect(try TraceDump(path: directory + "/same.1.trace").recordCount == 80)
    }

    /// A fake trace of `pid`, modified `age` seconds ago.
    static func fakeTrace(_ path: String, pid: UInt32, age: Int) throws {
        var bytes = Array(TraceLayout.magic.description.utf8) + [2, 0, 0, 0, 64, 0, 0, 0]
        bytes += withUnsafeBytes(of: pid.littleEndian, Array.init) + [UInt8](repeating: 0, count: 44)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        var times = [timespec(tv_sec: time(nil) - age, tv_nsec: 0), timespec(tv_sec: time(nil) - age, tv_nsec: 0)]
        utimensat(AT_FDCWD, path, &times, 0)
    }

    @Test func pruningKeepsTheNewestAndNeverTouchesOthers() throws {
        let directory = Paths.temporaryDirectory("prune")
        let elsewhere = Paths.temporaryDirectory("elsewhere")
        let dead: UInt32 = 0x3FFF_FFF0  // above pid_max: no such process
        for index in 0 ..< 5 { try Self.fakeTrace(directory + "/old\(index).trace", pid: dead, age: 1000 - index) }
        try Self.fakeTrace(directory + "/live.trace", pid: UInt32(getpid()), age: 5000)
        try Data("not a trace".utf8).write(to: URL(fileURLWithPath: directory + "/notes.trace"))
        try Self.fakeTrace(elsewhere + "/target.trace", pid: dead, age: 9000)
        symlink(elsewhere + "/target.trace", directory + "/link.trace")
        try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.calls, directory, 10),
            environment: [
                "TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": directory + "/new.trace",
                "TRAIL_TRACE_KEEP_FILES": "3",
            ], check: true)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: directory))
        // This process's, the live one, and the newest old one: three traces; the rest is not a trace.
        #expect(left == ["new.trace", "live.trace", "old4.trace", "notes.trace", "link.trace"])
        #expect(FileManager.default.fileExists(atPath: elsewhere + "/target.trace"))
    }

    /// A suite that runs a traced tool hundreds of times keeps every run's trace by default: the count limit is
    /// 1000, and the total size is what bounds the disk.
    @Test func theDefaultKeepsHundredsOfTraces() throws {
        let directory = Paths.temporaryDirectory("prune-default")
        for index in 0 ..< 300 {
            try Self.fakeTrace(directory + "/run\(index).trace", pid: 0x3FFF_FFF0, age: 1000 - index)
        }
        try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.calls, directory, 10),
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": directory + "/new.trace"],
            check: true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).count == 301)
    }

    /// A full disk under a trace: the program runs on, the trace keeps what was written, and both the program's
    /// exit and the viewers say so.
    @Test func aFullDiskStopsTheTraceNotTheProgram() throws {
        let directory = Paths.temporaryDirectory("trace-full")
        let path = directory + "/full.trace"
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.traceDiskFull, directory, 300000, 262144),
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "still running\n")
        #expect(
            result.stderr.contains(
                "trail: writing the trace \(path) failed (File too large): it holds the records before that; "),
            "\(result.stderr)")
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        #expect(size > 0 && size <= 262_144)
        let report = try run(Paths.trail, ["report", path])
        #expect(report.status == 0, "\(report.stderr)")
        #expect(report.stdout.contains("Probe.nothing()"))
        #expect(report.stderr.contains("ends early"))
    }

    /// A disk that fills as a trace is created: the header and INFO are written before the file has its name, so
    /// no headerless or half-made file appears, none is left aside, and exit says the trace was not recorded
    /// rather than that an empty file holds the records before the failure.
    @Test(arguments: [40, 100])
    func aDiskFullAtCreationLeavesNoFile(limit: Int) throws {
        let directory = Paths.temporaryDirectory("trace-full-start")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/traces/full.trace"
        // Through a pipe, which the file size limit does not cut as it cuts a file.
        let result = try run(
            "/bin/sh",
            ["-c", "\"$0\" \"$@\" 2>&1 | cat", RuntimeProbe.path]
                + RuntimeProbe.arguments(.traceDiskFull, directory, 1000, limit),
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": path])
        #expect(
            result.stdout.contains("trail: cannot write trace file \(path): File too large; the trace is not recorded"),
            "\(result.stdout)")
        #expect(result.stdout.hasSuffix("still running\n") && !result.stdout.contains("holds the records before that"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/traces") == [])
    }

    /// What a process killed while writing its trace aside leaves (where there is no O_TMPFILE) is removed by the
    /// next pruning once its process is gone; a live process's, or one just made, is left alone.
    @Test func filesLeftAsideByKilledProcessesArePruned() throws {
        let directory = Paths.temporaryDirectory("prune-aside")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let dead = 0x3FFF_FFF0
        for (name, age) in [
            (".trail-\(dead)-0.tmp", 120), (".trail-\(dead)-1.tmp", 0), (".trail-\(getpid())-0.tmp", 120),
        ] {
            try Data("TRAILTRC".utf8).write(to: URL(fileURLWithPath: directory + "/" + name))
            var times = [timespec(tv_sec: time(nil) - age, tv_nsec: 0), timespec(tv_sec: time(nil) - age, tv_nsec: 0)]
            utimensat(AT_FDCWD, directory + "/" + name, &times, 0)
        }
        try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.calls, directory, 10),
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": directory + "/new.trace"], check: true)
        #expect(
            Set(try FileManager.default.contentsOfDirectory(atPath: directory)) == [
                "new.trace", ".trail-\(dead)-1.tmp", ".trail-\(getpid())-0.tmp",
            ])
        let report = try run(Paths.trail, ["report", directory])
        #expect(report.status == 0 && !report.stderr.contains(".tmp"), "\(report.stderr)")
    }

    /// A child started with an environment of its own (as test harnesses do with Foundation's Process) is traced
    /// when its parent records: it takes the parent's TRAIL_TRACE* settings. TRAIL_TRACE=off opts out, and log
    /// mode, whose lines would land on a stderr the harness reads, is not passed on this way.
    @Test func aChildWithAnEnvironmentOfItsOwnIsTracedToo() throws {
        let directory = Paths.temporaryDirectory("scrubbed")
        let traces = {
            (try FileManager.default.contentsOfDirectory(atPath: directory)).filter { $0.hasSuffix(".trace") }
        }
        let pattern = ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": directory + "/%p.trace"]
        let inherited = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.spawnChild, directory, "X=1"), environment: pattern, check: true)
        #expect(inherited.stdout.contains("child 0"))
        #expect(try traces().count == 2, "the parent's trace and the child's")
        for name in try traces() {
            let dump = try TraceDump(path: directory + "/" + name)
            #expect(dump.names.values.contains("Probe.nothing() @ Probe/main.swift:120"))
        }
        for name in try traces() { try FileManager.default.removeItem(atPath: directory + "/" + name) }
        try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.spawnChild, directory, "TRAIL_TRACE=off"), environment: pattern,
            check: true)
        #expect(try traces().count == 1, "the child opted out")

        let logged = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.spawnChild, directory, ""), environment: ["TRAIL_TRACE": "1"],
            check: true)
        #expect(
            logged.stderr.components(separatedBy: "-> Probe.nothing()").count == 2,
            "only the parent's line: \(logged.stderr)")
    }

    @Test func pruningByTotalSize() throws {
        let directory = Paths.temporaryDirectory("prune-total")
        for index in 0 ..< 4 {
            try Self.fakeTrace(directory + "/old\(index).trace", pid: 0x3FFF_FFF0, age: 1000 - index)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: directory + "/old\(index).trace"))
            try handle.truncate(atOffset: 100_000)
            try handle.close()
            var times = [
                timespec(tv_sec: time(nil) - 1000 + index, tv_nsec: 0),
                timespec(tv_sec: time(nil) - 1000 + index, tv_nsec: 0),
            ]
            utimensat(AT_FDCWD, directory + "/old\(index).trace", &times, 0)
        }
        try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.calls, directory, 10),
            environment: [
                "TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": directory + "/new.trace",
                "TRAIL_TRACE_KEEP_TOTAL": "250000",
            ], check: true)
        #expect(
            Set(try FileManager.default.contentsOfDirectory(atPath: directory)) == [
                "new.trace", "old2.trace", "old3.trace",
            ])
    }

    /// For every limit, 0 means no limit: the trace's own size, the depth, and what pruning keeps, by count and
    /// by total (which deleted every older trace).
    @Test func zeroMeansNoLimit() throws {
        let directory = Paths.temporaryDirectory("prune-zero")
        for index in 0 ..< 4 {
            try Self.fakeTrace(directory + "/old\(index).trace", pid: 0x3FFF_FFF0, age: 1000 - index)
        }
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.calls, directory, 10),
            environment: [
                "TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": directory + "/new.trace", "TRAIL_TRACE_KEEP_FILES": "0",
                "TRAIL_TRACE_KEEP_TOTAL": "0", "TRAIL_TRACE_MAX_SIZE": "0", "TRAIL_TRACE_DEPTH": "0",
            ], check: true)
        #expect(!result.stderr.contains("trail: TRAIL_"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).count == 5)
    }

    /// A program that links the runtime but ran no traced function (an untraced build) leaves a trace with no
    /// calls: the viewers say why instead of printing a header.
    @Test func aTraceWithNoCallsSaysWhy() throws {
        let directory = Paths.temporaryDirectory("no-calls")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let trace = directory + "/untraced.trace"
        try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.stderr, directory),
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": trace],
            check: true)
        let replay = try run(Paths.trail, ["replay", trace], check: true)
        #expect(
            replay.stderr.contains("\(trace) holds no calls: the program ran no traced function. Was it built traced?"),
            "\(replay.stderr)")
        #expect(replay.stderr.contains("'trail run' and 'trail test' do it all"))
    }

    @Test func badSettingsAreReported() throws {
        let directory = Paths.temporaryDirectory("settings")
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.calls, directory, 10),
            environment: [
                "TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": directory + "/s.trace", "TRAIL_TRACE_MAX_SIZE": "lots",
                "TRAIL_TRACE_KEEP": "middle",
            ], check: true)
        #expect(result.stderr.contains("trail: TRAIL_TRACE_MAX_SIZE=lots is not a size"))
        #expect(result.stderr.contains("trail: TRAIL_TRACE_KEEP=middle is not one of last, first; using last"))
    }
}
