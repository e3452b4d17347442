import Foundation
import Testing
import TrailTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The logger on an operator's ordinary day: a second copy of the service, fork() without exec, floods on fd 2
/// from the program and from children, a folder cleaned by hand, descriptors that run out.
@Suite struct OperatorDayLogTests {
    func logText(_ directory: String) throws -> String {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".log") }.sorted()
            .map { Transcript.read(directory + "/" + $0) }.joined()
    }

    /// How often each line matching `pattern` (its first capture group, the line's key) appears.
    func counts(_ text: String, _ pattern: String) throws -> [String: Int] {
        let regex = try NSRegularExpression(pattern: pattern)
        var counts: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let string = String(line)
            guard let match = regex.firstMatch(in: string, range: NSRange(string.startIndex..., in: string)),
                let key = Range(match.range(at: 1), in: string)
            else { continue }
            counts[String(string[key]), default: 0] += 1
        }
        return counts
    }

    @Test func threeCopiesRotatingAt4KiBLoseAndDuplicateNoLine() throws {
        let directory = Paths.temporaryDirectory("instances")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let environment = ["TRAIL_LOG_MAX_SIZE": "4K", "TRAIL_LOG_MAX_FILES": "1000000", "TRAIL_LOG_MAX_TOTAL": "1G"]
        let lines = 20_000
        final class Statuses: @unchecked Sendable {
            var values: [Int32] = [-1, -1, -1]
            let lock = NSLock()
        }
        let statuses = Statuses()
        DispatchQueue.concurrentPerform(iterations: 3) { id in
            let status =
                (try? run(
                    "timeout",
                    ["-s", "KILL", "120", RuntimeProbe.path] + RuntimeProbe.arguments(.instance, directory, id, lines),
                    environment: environment))?.status ?? -1
            statuses.lock.withLock { statuses.values[id] = status }
        }
        #expect(statuses.values == [0, 0, 0])
        let seen = try counts(try logText(directory), #"info probe: instance (\d line \d+) "#)
        #expect(seen.count == 3 * lines, "every line of every copy is present: \(seen.count) of \(3 * lines)")
        #expect(seen.values.allSatisfy { $0 == 1 }, "no line twice: \(seen.filter { $0.value > 1 }.prefix(5))")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".log") }
        #expect(files.count > 100, "rotation at 4 KiB gives many files: \(files.count)")
    }

    @Test func aSecondCopyJoinsTheLiveLogInsteadOfMovingIt() throws {
        let directory = Paths.temporaryDirectory("join")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The first copy is still writing when the second starts: the second must not rotate its file away. No
        // size limit is reached (200,000 lines are some 18 MB, over the default 10 MiB): on a busy machine the
        // second started late, after the first had rotated on its own, and that was taken for the second's doing.
        let unbounded = ["TRAIL_LOG_MAX_SIZE": "1G", "TRAIL_LOG_MAX_TOTAL": "4G"]
        let first = Thread {
            _ = try? run(
                RuntimeProbe.path, RuntimeProbe.arguments(.instance, directory, 0, 200000), environment: unbounded)
        }
        first.start()
        var waited = 0
        while !FileManager.default.fileExists(atPath: directory + "/probe.log"), waited < 500 {
            usleep(10_000)
            waited += 1
        }
        try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.instance, directory, 1, 10), environment: unbounded, check: true)
        let rotated = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
            $0.hasPrefix("probe.") && $0 != "probe.log"
        }
        #expect(rotated.filter { $0.hasSuffix(".log") }.isEmpty, "nothing rotated at the second start: \(rotated)")
        while (try? counts(try logText(directory), #"(instance 0) line 199999 "#))?.isEmpty ?? true, waited < 6000 {
            usleep(10_000)
            waited += 1
        }
        let seen = try counts(try logText(directory), #"info probe: instance (\d line \d+) "#)
        #expect(seen.count == 200_010)
        #expect(seen.values.allSatisfy { $0 == 1 })
    }

    @Test func forkWithoutExecNeitherHangsNorLosesOrRepeatsLines() throws {
        let directory = Paths.temporaryDirectory("fork-log")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try run(
            "timeout", ["-s", "KILL", "120", RuntimeProbe.path] + RuntimeProbe.arguments(.forkLog, directory, 50),
            environment: [
                "TRAIL_LOG_MAX_SIZE": "256K", "TRAIL_LOG_MAX_FILES": "100000",
                "TRAIL_LOG_MAX_TOTAL": "1G",
            ])
        #expect(result.status == 0, "\(result.stderr.suffix(500))")
        #expect(result.stdout.contains("hung 0"), "\(result.stdout)")
        let text = try logText(directory)
        let children = try counts(text, #"info probe: (child \d+ line \d+) "#)
        #expect(children.count == 50 * 20, "every child line: \(children.count) of 1000")
        #expect(children.values.allSatisfy { $0 == 1 }, "\(children.filter { $0.value > 1 }.prefix(5))")
        let parent = try counts(text, #"info t\d: (parent thread \d line \d+) "#)
        var expected = 0
        for line in result.stdout.split(separator: "\n") where line.hasPrefix("thread ") {
            expected += Int(line.split(separator: " ").last!) ?? 0
        }
        #expect(expected > 0 && parent.count == expected, "every parent line: \(parent.count) of \(expected)")
        #expect(parent.values.allSatisfy { $0 == 1 }, "the parent's buffered lines are not written again by a child")
    }

    @Test(arguments: [FloodSource.write, .child])
    func twentyMegabytesOnFd2StayWithinTheBounds(source: FloodSource) throws {
        let directory = Paths.temporaryDirectory("flood-\(source)")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.flood, directory, source, 20_000_000),
            environment: ["TRAIL_LOG_MAX_SIZE": "64K", "TRAIL_LOG_MAX_TOTAL": "1M", "TRAIL_LOG_MAX_FILES": "1000"])
        #expect(result.status == 0, "\(result.stderr.suffix(500))")
        let largest =
            Int(result.stdout.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? -1
        #expect(largest > 512 << 10 && largest <= (1 << 20) + (64 << 10), "largest total on disk \(largest)")
        let sizes = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".log") }
            .map { (try FileManager.default.attributesOfItem(atPath: directory + "/" + $0))[.size] as? Int ?? 0 }
        #expect(sizes.allSatisfy { $0 <= 64 << 10 }, "\(sizes)")
        #expect(sizes.reduce(0, +) <= 1 << 20)
    }

    @Test(arguments: [VanishingPart.folder, .file])
    func aLogFolderOrFileDeletedByHandIsMadeAgainAndSaidOnce(what: VanishingPart) throws {
        let directory = Paths.temporaryDirectory("vanish-\(what)") + "/logs"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try run(RuntimeProbe.path, RuntimeProbe.arguments(.vanish, directory, what), check: true)
        #expect(result.stdout.contains("done"))
        let notes = result.stderr.components(separatedBy: "\n").filter {
            $0.contains("was deleted while in use; made again")
        }
        #expect(notes.count == 1, "\(result.stderr)")
        let text = Transcript.read(directory + "/probe.log")
        let after = try counts(text, #"info probe: (after \d+) "#)
        #expect(after.count == 1000 && after.values.allSatisfy { $0 == 1 }, "\(after.count) of 1000 later lines")
        #expect(try counts(text, #"^(raw after \d+)$"#).count == 10)
    }

    @Test func linesThatCannotBeWrittenGoToStderrCounted() throws {
        let directory = Paths.temporaryDirectory("emfile")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.emfile, directory),
            environment: ["TRAIL_LOG_MAX_SIZE": "4K", "TRAIL_LOG_MAX_FILES": "10000"],
            check: true)
        #expect(
            result.stderr.components(separatedBy: "cannot write log file").count - 1 == 1,
            "\(result.stderr.prefix(2000))")
        #expect(result.stderr.contains("Too many open files"))
        let again = try counts(result.stderr, #"writing log file .* again; (\d+) lines went to stderr meanwhile"#)
        #expect(again.count == 1, "\(result.stderr.suffix(1000))")
        // Every line is somewhere exactly once: in the files, or on the original stderr.
        let everything = try logText(directory) + result.stderr
        let seen = try counts(everything, #"info probe: ((?:first|starved|last) \d+) "#)
        #expect(seen.count == 400 && seen.values.allSatisfy { $0 == 1 }, "\(seen.count) of 400")
        let diverted = try counts(result.stderr, #"info probe: ((?:first|starved|last) \d+) "#).count
        #expect(again.keys.first.flatMap(Int.init) == diverted)
    }

    /// fd 2 is a pipe the program drains: a child that outlives the program would then block once the pipe was
    /// full, or die of SIGPIPE. A keeper process drains it into the file, up to one file's size.
    @Test(arguments: [OutliveEnd.exit, .segv])
    func aChildThatOutlivesTheProgramKeepsWritingToStderr(end: OutliveEnd) throws {
        let base = Paths.temporaryDirectory("outlive-\(end)")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let directory = base + "/logs"
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.outlive, directory, end),
            environment: ["TRAIL_LOG_MAX_SIZE": "64K"])
        #expect(result.signal == (end == .segv ? 11 : nil), "\(result.stderr.suffix(300))")
        var waited = 0
        while !FileManager.default.fileExists(atPath: base + "/child-done"), waited < 1000 {
            usleep(10_000)
            waited += 1
        }
        #expect(FileManager.default.fileExists(atPath: base + "/child-done"), "the child ran to its end")
        let text = try logText(directory)
        #expect(text.contains("late line 0 from a child"))
        let late = try counts(text, #"^(late line \d+) from a child$"#)
        #expect(
            late.count > 500 && late.count < 3000 && late.values.allSatisfy { $0 == 1 },
            "the keeper writes up to 64K: \(late.count)")
    }

    @Test func aDaemonStartedWithFd2ClosedStillLogsBoth() throws {
        let directory = Paths.temporaryDirectory("closed-stderr")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try run(RuntimeProbe.path, RuntimeProbe.arguments(.closedStderr, directory), check: true)
        let text = try logText(directory)
        #expect(text.contains("info probe: logged with fd 2 closed at start"), "\(text)")
        #expect(text.split(separator: "\n").contains("written to stderr with fd 2 closed at start"), "\(text)")
    }

    /// daemon() ends the parent at once and points the child's fd 2 at /dev/null: the buffered line and the
    /// child's own lines were both lost.
    @Test func daemonizingLosesNoLine() throws {
        let base = Paths.temporaryDirectory("daemon")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let directory = base + "/logs"
        try run(RuntimeProbe.path, RuntimeProbe.arguments(.daemon, directory), check: true)
        var waited = 0
        while !FileManager.default.fileExists(atPath: base + "/daemon-done"), waited < 1000 {
            usleep(10_000)
            waited += 1
        }
        let text = try logText(directory)
        #expect(text.contains("info probe: before daemon"), "\(text)")
        #expect(text.contains("info probe: after daemon"), "\(text)")
    }

    /// A folder where RENAME_NOREPLACE fails with EINVAL (NFS, CIFS, 9p) made the first rotation spin forever
    /// holding the log's lock, and the next start deleted the previous run's log.
    @Test func aFolderWithoutRenameNoreplaceStillRotatesAndKeepsThePreviousLog() throws {
        let base = Paths.temporaryDirectory("noreplace")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let source = base + "/einval.c"
        let library = base + "/einval.so"
        try """
        #define _GNU_SOURCE
        #include <errno.h>
        #include <stdio.h>
        int renameat2(int a, const char *b, int c, const char *d, unsigned int flags) { errno = EINVAL; return -1; }
        """.write(toFile: source, atomically: true, encoding: .utf8)
        try run("cc", ["-shared", "-fPIC", "-o", library, source], check: true)
        let directory = base + "/logs"
        let environment = ["LD_PRELOAD": library, "TRAIL_LOG_MAX_SIZE": "4K", "TRAIL_LOG_MAX_FILES": "1000"]
        try run(
            "timeout", ["-s", "KILL", "60", RuntimeProbe.path] + RuntimeProbe.arguments(.instance, directory, 0, 2000),
            environment: environment,
            check: true)
        try run(
            "timeout", ["-s", "KILL", "60", RuntimeProbe.path] + RuntimeProbe.arguments(.instance, directory, 1, 10),
            environment: environment,
            check: true)
        let seen = try counts(try logText(directory), #"info probe: instance (\d line \d+) "#)
        #expect(seen.count == 2010 && seen.values.allSatisfy { $0 == 1 }, "\(seen.count) of 2010")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".log") }
        #expect(files.count > 20, "rotated by a plain rename: \(files.count) files")
    }

    /// A program that execs after bootstrap left the new program a pipe no one drained: it died of SIGPIPE on its
    /// first write to stderr.
    @Test func aProgramThatExecsAfterBootstrapHandsTheNewOneTheLog() throws {
        let directory = Paths.temporaryDirectory("exec")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try run(RuntimeProbe.path, RuntimeProbe.arguments(.exec, directory))
        #expect(result.status == 0 && result.signal == nil, "\(result.shellStatus) \(result.stderr)")
        #expect(result.stdout == "a\nb\n")
        let text = try logText(directory)
        #expect(text.contains("info probe: before exec"))
        #expect(text.split(separator: "\n").contains("from the program exec ran"), "\(text)")
    }
}
