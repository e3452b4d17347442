import Foundation
import Testing
import TrailTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A trace that cannot be read (empty, cut inside its header, missing) is skipped with a note naming it and why,
/// whether it is named on the command line, found in a folder, picked as the newest, or followed; only when
/// nothing is left to read is it an error.
/// A small whole trace: one call of `M.main()` on one thread.
func writeMainTrace(to path: String) throws {
    var builder = TraceBuilder()
    CallStreamTests.named(&builder)
    builder.records(
        slot: 0, tid: 100, position: 0,
        [
            CallStreamTests.enter(1000, CallStreamTests.main, 0),
            CallStreamTests.exit(3000, CallStreamTests.main, 0),
        ])
    builder.watermark(4000)
    builder.end(records: 2)
    try builder.write(to: path)
}

@Suite struct BadTraceFileTests {
    /// A folder with one small trace of `M.main()`, an empty trace and one cut inside its header.
    static func folder(_ name: String) throws -> String {
        let folder = Paths.temporaryDirectory(name)
        try writeMainTrace(to: folder + "/good.trace")
        try Data().write(to: URL(fileURLWithPath: folder + "/empty.trace"))
        try Data("TRAILTRC\u{2}\0\0\0".utf8).write(to: URL(fileURLWithPath: folder + "/short.trace"))
        return folder
    }

    @Test(arguments: [["report"], ["replay"], ["flamegraph", "--folded"], ["export", "--chrome"]])
    func aBadFileInAListIsSkippedAsInAFolder(verb: [String]) throws {
        let folder = try Self.folder("named")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bad = ["empty.trace", "short.trace", "gone.trace"].map { folder + "/" + $0 }
        let result = try run(Paths.trail, verb + [folder + "/good.trace"] + bad)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("M.main()"))
        #expect(result.stderr.contains("trail: skipping \(folder)/empty.trace: the file is empty, not a trail trace"))
        #expect(
            result.stderr.contains(
                "trail: skipping \(folder)/short.trace: the trace ends inside its header (12 of 64 bytes)"))
        #expect(result.stderr.contains("trail: skipping \(folder)/gone.trace: no such trace file or folder"))

        let nothing = try run(Paths.trail, verb + bad)
        #expect(nothing.status == 1)
        #expect(nothing.stderr.contains("skipping \(folder)/empty.trace"))
        #expect(nothing.stderr.contains("no trace could be read (see above)"), "\(nothing.stderr)")
    }

    /// With no trace named, the newest is read: one that cannot be read (a process killed as an older runtime
    /// created it) is passed over for the next.
    @Test func theNewestThatCanBeReadIsPicked() throws {
        let folder = try Self.folder("newest")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/trail-traces", withIntermediateDirectories: false)
        for (name, age) in [("good.trace", 100), ("short.trace", 50), ("empty.trace", 10)] {
            try FileManager.default.moveItem(atPath: folder + "/" + name, toPath: folder + "/trail-traces/" + name)
            var times = [timespec(tv_sec: time(nil) - age, tv_nsec: 0), timespec(tv_sec: time(nil) - age, tv_nsec: 0)]
            utimensat(AT_FDCWD, folder + "/trail-traces/" + name, &times, 0)
        }
        let result = try run(Paths.trail, ["report"], directory: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("M.main()"))
        #expect(
            result.stderr.contains("trail: skipping trail-traces/empty.trace: the file is empty, not a trail trace"))
        #expect(result.stderr.contains("trail: skipping trail-traces/short.trace: the trace ends inside its header"))
        #expect(result.stderr.contains("trail: reading trail-traces/good.trace, the newest of 3 traces"))
    }

    /// `--follow` looks at a bad file again while it is there (an older runtime's file gets its header a moment
    /// after it appears), and says why it skips it once.
    @Test func followSaysOnceWhyItSkipsAFile() throws {
        let folder = try Self.folder("follow")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let errors = folder + "/follow.err"
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        let follower = Process()
        follower.executableURL = URL(fileURLWithPath: Paths.trail)
        follower.arguments = ["export", "--otlp", "--follow", folder]
        follower.environment = ["PATH": "/usr/bin:/bin"]
        follower.standardOutput = FileHandle.nullDevice
        follower.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        try follower.run()
        usleep(1_200_000)  // some six looks at the folder
        follower.terminate()
        follower.waitUntilExit()
        let said = try String(contentsOfFile: errors, encoding: .utf8)
        let note = "trail export: skipping \(folder)/empty.trace: the file is empty, not a trail trace"
        #expect(said.components(separatedBy: note).count == 2, "\(said)")
        #expect(said.components(separatedBy: "skipping \(folder)/short.trace").count == 2, "\(said)")
    }
}
