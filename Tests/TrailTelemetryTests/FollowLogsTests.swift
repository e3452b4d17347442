import Foundation
import Testing
import TrailTelemetry
import TrailTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `trail export --otlp-logs --follow` beside services that log and rotate: every line arrives once and soon,
/// across rotations, pruned files, a restart of the follower, a receiver that refuses for a while, and a file cut
/// back by copytruncate.
@Suite(.serialized) struct FollowLogsTests {
    /// A service logging `rate` JSON lines a second for `seconds` into `directory`, rotating every 64 KiB (some
    /// 300 lines) and keeping 4 files, so that files are pruned while the follower may still be reading them.
    static func service(_ directory: String, id: Int, seconds: Int, output: Pipe, rate: Int = 500) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: RuntimeProbe.path)
        process.arguments = RuntimeProbe.arguments(.logSteady, directory, seconds, rate, id)
        process.environment = ["TRAIL_LOG_FORMAT": "json", "TRAIL_LOG_MAX_SIZE": "64K", "TRAIL_LOG_MAX_FILES": "4"]
        process.standardOutput = output
        try process.run()
        return process
    }

    static func follower(_ target: String, _ receiver: LoopbackReceiver, stderr: String? = nil, options: [String] = [])
        throws -> Process
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Paths.trail)
        process.arguments =
            [
                "export", "--otlp-logs", "--follow", "--endpoint", "http://127.0.0.1:\(receiver.port)", "--protocol",
                "http/json", target,
            ] + options
        if let stderr {
            FileManager.default.createFile(atPath: stderr, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: stderr)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        return process
    }

    /// Every accepted record's body, and seconds from its time to its receipt.
    static func delivered(_ receiver: LoopbackReceiver) throws -> (bodies: [String], delays: [Double]) {
        var bodies: [String] = []
        var delays: [Double] = []
        for request in receiver.requests where request.status == 200 {
            let object = try #require(JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
            for resource in object["resourceLogs"] as? [[String: Any]] ?? [] {
                for scope in resource["scopeLogs"] as? [[String: Any]] ?? [] {
                    for record in scope["logRecords"] as? [[String: Any]] ?? [] {
                        bodies.append((record["body"] as? [String: Any])?["stringValue"] as? String ?? "")
                        delays.append(request.time - (Double(record["timeUnixNano"] as? String ?? "0") ?? 0) / 1e9)
                    }
                }
            }
        }
        return (bodies, delays)
    }

    /// The lines each service said it logged: "steady ID line N" for N below its count.
    static func expected(_ services: [(id: Int, process: Process, output: Pipe)]) -> Set<String> {
        var lines = Set<String>()
        for service in services {
            let text = String(decoding: service.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            service.process.waitUntilExit()
            let count = Int(text.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
            for line in 0 ..< count { lines.insert("steady \(service.id) line \(line)") }
        }
        return lines
    }

    static func services(_ directory: String, ids: [Int], seconds: Int) throws -> [(
        id: Int, process: Process, output: Pipe
    )] {
        try ids.map { id in
            let output = Pipe()
            return (id, try service(directory, id: id, seconds: seconds, output: output), output)
        }
    }

    @Test func twoServicesLinesArriveOnceAndSoonAcrossRotations() throws {
        let directory = Paths.temporaryDirectory("follow-logs")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let receiver = try LoopbackReceiver(connections: .keepAlive)
        defer { receiver.stop() }
        // The folder exists before the follower starts, as a log folder would.
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let follower = try Self.follower(directory, receiver)
        defer { FollowTests.stop(follower) }
        let services = try Self.services(directory, ids: [1, 2], seconds: 3)
        let expected = Self.expected(services)
        #expect(expected.count > 2000, "\(expected.count) lines logged")
        try FollowTests.waitFor(10) { Set(try Self.delivered(receiver).bodies).isSuperset(of: expected) }
        FollowTests.stop(follower)
        let (bodies, delays) = try Self.delivered(receiver)
        let steady = bodies.filter { $0.hasPrefix("steady ") }
        #expect(
            steady.count == expected.count && Set(steady) == expected,
            "\(steady.count) delivered, \(Set(steady).count) distinct, \(expected.count) expected")
        let sorted = delays.sorted()
        let median = sorted[sorted.count / 2]
        let p99 = sorted[sorted.count * 99 / 100]
        print(
            "follow logs: \(bodies.count) records, delay from line to receipt: median \(String(format: "%.2f", median)) s, p99 \(String(format: "%.2f", p99)) s"
        )
        #expect(p99 < 2, "median \(median) s, p99 \(p99) s")
    }

    @Test func aRestartedFollowerAndARefusingReceiverLoseAndRepeatNothing() throws {
        let directory = Paths.temporaryDirectory("follow-logs-restart")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Up, then three refusals in a row (503, retried with backoff), then up again.
        let receiver = try LoopbackReceiver(connections: .keepAlive) { index in
            (2 ... 4).contains(index) ? LoopbackReceiver.Answer(status: 503) : LoopbackReceiver.Answer()
        }
        defer { receiver.stop() }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let services = try Self.services(directory, ids: [3], seconds: 4)
        let first = try Self.follower(directory, receiver)
        try FollowTests.waitFor(5) { try Self.delivered(receiver).bodies.count > 300 }
        FollowTests.stop(first)  // SIGTERM: what is pending goes, the cursor is saved
        let before = try Self.delivered(receiver).bodies.count
        let second = try Self.follower(directory, receiver)
        defer { FollowTests.stop(second) }
        let expected = Self.expected(services)
        try FollowTests.waitFor(20) { Set(try Self.delivered(receiver).bodies).isSuperset(of: expected) }
        FollowTests.stop(second)
        let steady = try Self.delivered(receiver).bodies.filter { $0.hasPrefix("steady ") }
        #expect(receiver.requests.filter { $0.status == 503 }.count == 3)
        #expect(
            steady.count == expected.count && Set(steady) == expected,
            "\(steady.count) delivered (\(before) before the restart), \(Set(steady).count) distinct, \(expected.count) expected"
        )
    }

    /// A rotation between the follower's listing and its open: the path listed now holds a new file. Read as the
    /// listed one, the listed one's rest was never read (seen in CI: a restarted follower lost the last 63 lines
    /// of a file). The open refuses it; the next listing finds both files where they now are.
    @Test func aFileRotatedBetweenTheListingAndTheOpenIsNotTakenForTheNewOne() throws {
        let directory = Paths.temporaryDirectory("follow-logs-race")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let live = directory + "/app.log"
        try "first file\n".write(toFile: live, atomically: false, encoding: .utf8)
        var info = stat()
        #expect(stat(live, &info) == 0)
        let listed = LogLines.fileKey(info)
        // The logger rotates: the listed file becomes app.1.log, and a new app.log begins.
        #expect(rename(live, directory + "/app.1.log") == 0)
        try "second file\n".write(toFile: live, atomically: false, encoding: .utf8)
        #expect(LogLines.openListed(live, key: listed) == nil)
        let rotated = try #require(LogLines.openListed(directory + "/app.1.log", key: listed))
        close(rotated)
        #expect(stat(live, &info) == 0)
        let current = try #require(LogLines.openListed(live, key: LogLines.fileKey(info)))
        close(current)
        // Never through a link, nor a FIFO, even listed under their own keys.
        #expect(symlink(directory + "/app.1.log", directory + "/link.log") == 0)
        #expect(lstat(directory + "/link.log", &info) == 0)
        #expect(LogLines.openListed(directory + "/link.log", key: LogLines.fileKey(info)) == nil)
        #expect(mkfifo(directory + "/pipe.log", 0o600) == 0)
        #expect(stat(directory + "/pipe.log", &info) == 0)
        #expect(LogLines.openListed(directory + "/pipe.log", key: LogLines.fileKey(info)) == nil)
    }

    /// The log folder deleted by hand, cursor and all, while a service logs into it: the service makes it again,
    /// the follower goes on (reading the deleted files to their end through its descriptors, then the new ones),
    /// and every line arrives once.
    @Test func aFolderDeletedByHandLosesNoLine() throws {
        let directory = Paths.temporaryDirectory("follow-logs-vanish")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let receiver = try LoopbackReceiver(connections: .keepAlive)
        defer { receiver.stop() }
        let errors = directory + "-follower.err"
        defer { try? FileManager.default.removeItem(atPath: errors) }
        let follower = try Self.follower(directory, receiver, stderr: errors)
        defer { FollowTests.stop(follower) }
        let services = try Self.services(directory, ids: [5], seconds: 4)
        try FollowTests.waitFor(5) { try Self.delivered(receiver).bodies.count > 500 }
        try FileManager.default.removeItem(atPath: directory)
        let expected = Self.expected(services)
        try FollowTests.waitFor(10) { Set(try Self.delivered(receiver).bodies).isSuperset(of: expected) }
        #expect(follower.isRunning, "\(Transcript.read(errors))")
        FollowTests.stop(follower)
        let steady = try Self.delivered(receiver).bodies.filter { $0.hasPrefix("steady ") }
        #expect(
            steady.count == expected.count && Set(steady) == expected,
            "\(steady.count) delivered, \(Set(steady).count) distinct, \(expected.count) expected")
    }

    /// A file followed by name, cut back to nothing and written again (logrotate's copytruncate): the new lines
    /// arrive, and a last line without a newline arrives once its file is rotated away.
    @Test func aTruncatedFileIsReadAgainFromItsStart() throws {
        let directory = Paths.temporaryDirectory("follow-logs-truncate")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/tool.log"
        try
            "2026-12-04T10:00:00.000000Z info tool: first run line 1\n2026-12-04T10:00:00.100000Z info tool: first run line 2\n"
            .write(toFile: path, atomically: false, encoding: .utf8)
        let receiver = try LoopbackReceiver(connections: .keepAlive)
        defer { receiver.stop() }
        let follower = try Self.follower(path, receiver)
        defer { FollowTests.stop(follower) }
        try FollowTests.waitFor(5) { try Self.delivered(receiver).bodies.count >= 2 }
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(
            contentsOf: Data(
                "2026-12-04T10:01:00.000000Z info tool: after the cut\n2026-12-04T10:01:00.1Z info tool: no newline"
                    .utf8))
        try handle.close()
        try FollowTests.waitFor(5) { try Self.delivered(receiver).bodies.contains("after the cut") }
        try FileManager.default.moveItem(atPath: path, toPath: directory + "/tool.1.log")
        try FollowTests.waitFor(6) { try Self.delivered(receiver).bodies.contains("no newline") }
        FollowTests.stop(follower)
        #expect(
            try Self.delivered(receiver).bodies == [
                "first run line 1", "first run line 2", "after the cut", "no newline",
            ])
    }

    /// Files rotated and pruned before the follower saw them (it was blocked on a receiver that was down, say)
    /// cannot be sent: the gap in the rotation numbers is counted and said.
    @Test func rotatedFilesPrunedUnreadAreCountedAndSaid() throws {
        let directory = Paths.temporaryDirectory("follow-logs-lost")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        func write(_ name: String, _ line: String) throws {
            try "2026-12-04T10:00:00.000000Z info tool: \(line)\n".write(
                toFile: directory + "/" + name, atomically: false, encoding: .utf8)
        }
        try write("tool.1.log", "one")
        // Planted in the folder: a link to a file elsewhere and a FIFO. Neither is read, and the FIFO blocks nothing.
        let secret = directory + "-secret.txt"
        try "2026-12-04T10:00:00.000000Z info tool: secret\n".write(toFile: secret, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: secret) }
        try FileManager.default.createSymbolicLink(atPath: directory + "/evil.log", withDestinationPath: secret)
        #expect(mkfifo(directory + "/fifo.log", 0o600) == 0)
        let receiver = try LoopbackReceiver(connections: .keepAlive)
        defer { receiver.stop() }
        let errors = directory + "/follower.err"
        // A cursor that cannot be saved (its folder is gone): said once, and the follower goes on.
        let follower = try Self.follower(
            directory, receiver, stderr: errors, options: ["--cursor", directory + "/gone/cursor.json"])
        defer { FollowTests.stop(follower) }
        try FollowTests.waitFor(5) { try Self.delivered(receiver).bodies.contains("one") }
        try write("tool.4.log", "four")
        try FollowTests.waitFor(5) { try Self.delivered(receiver).bodies.contains("four") }
        FollowTests.stop(follower)
        #expect(try !Self.delivered(receiver).bodies.contains("secret"))
        let said = Transcript.read(errors)
        #expect(
            said.contains("2 rotated files of tool (tool.2.log to tool.3.log) were pruned before they could be read"),
            "\(said)")
        #expect(said.contains("2 log records sent, 2 rotated files lost unread"), "\(said)")
        #expect(
            said.components(separatedBy: "going on without it").count == 2, "the cursor's failure, said once: \(said)")
    }
}
