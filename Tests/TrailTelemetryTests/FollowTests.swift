import Foundation
import Testing
import TrailTestSupport

/// `trail export --otlp --follow` against a traced process that is still running: spans arrive as calls end,
/// each once, across a restart of the follower and a receiver that refuses for a while.
@Suite(.serialized) struct FollowTests {
    /// A traced process serving 200 requests a second for `seconds` (4 spans each), writing into `directory`.
    static func server(_ directory: String, seconds: Int) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: RuntimeProbe.path)
        process.arguments = RuntimeProbe.arguments(.steady, directory, seconds, 200)
        process.environment = ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": directory + "/%p.trace"]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return process
    }

    static func follower(_ directory: String, _ receiver: LoopbackReceiver) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Paths.trail)
        process.arguments = [
            "export", "--otlp", "--follow", "--endpoint", "http://127.0.0.1:\(receiver.port)", "--protocol",
            "http/json", directory,
        ]
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Span id -> (end time, seconds from its end to its receipt), for every span the receiver accepted.
    static func delivered(_ receiver: LoopbackReceiver) throws -> (ids: [String], delays: [Double]) {
        var ids: [String] = []
        var delays: [Double] = []
        for request in receiver.requests where request.status == 200 {
            let object = try #require(JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
            for span in otlpSpans(object) {
                ids.append(span["spanId"] as? String ?? "")
                let end = Double(span["endTimeUnixNano"] as? String ?? "0") ?? 0
                delays.append(request.time - end / 1e9)
            }
        }
        return (ids, delays)
    }

    /// Every span of the finished trace, exported after the fact.
    static func expected(_ directory: String) throws -> Set<String> {
        let output = directory + "/all.json"
        try run(Paths.trail, ["export", "--otlp", "-o", output, directory], check: true)
        let ids = Set(try otlpSpans(inFile: output).map { $0["spanId"] as? String ?? "" })
        try FileManager.default.removeItem(atPath: output)
        return ids
    }

    static func waitFor(_ seconds: Double, until done: () throws -> Bool) rethrows {
        let deadline = Date().addingTimeInterval(seconds)
        while try !done(), Date() < deadline { usleep(50_000) }
    }

    static func stop(_ process: Process) {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    @Test func spansArriveWithinTwoSecondsOfTheirEndEachOnce() throws {
        let directory = Paths.temporaryDirectory("follow")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let receiver = try LoopbackReceiver(connections: .keepAlive)
        defer { receiver.stop() }
        let server = try Self.server(directory, seconds: 3)
        let follower = try Self.follower(directory, receiver)
        defer { Self.stop(follower) }
        server.waitUntilExit()
        let expected = try Self.expected(directory)
        #expect(expected.count == 2400 || expected.count > 2000, "\(expected.count) spans in the trace")
        try Self.waitFor(10) { try Self.delivered(receiver).ids.count >= expected.count }
        Self.stop(follower)
        let (ids, delays) = try Self.delivered(receiver)
        #expect(
            ids.count == expected.count && Set(ids) == expected,
            "\(ids.count) delivered, \(Set(ids).count) distinct, \(expected.count) expected")
        let sorted = delays.sorted()
        let median = sorted[sorted.count / 2]
        let p99 = sorted[sorted.count * 99 / 100]
        print(
            "follow: \(ids.count) spans, delay from end to receipt: median \(String(format: "%.2f", median)) s, p99 \(String(format: "%.2f", p99)) s"
        )
        #expect(p99 < 2, "median \(median) s, p99 \(p99) s")
        #expect(receiver.connections == 1, "one kept-alive connection")
    }

    @Test func aRestartedFollowerRepeatsAndSkipsNothing() throws {
        let directory = Paths.temporaryDirectory("follow-restart")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let receiver = try LoopbackReceiver(connections: .keepAlive)
        defer { receiver.stop() }
        let server = try Self.server(directory, seconds: 3)
        let first = try Self.follower(directory, receiver)
        try Self.waitFor(5) { try Self.delivered(receiver).ids.count > 300 }
        Self.stop(first)  // SIGTERM: what is pending goes, the cursor is saved
        let before = try Self.delivered(receiver).ids.count
        #expect(before > 0 && before < 2400)
        let second = try Self.follower(directory, receiver)
        defer { Self.stop(second) }
        server.waitUntilExit()
        let expected = try Self.expected(directory)
        try Self.waitFor(10) { try Self.delivered(receiver).ids.count >= expected.count }
        Self.stop(second)
        let ids = try Self.delivered(receiver).ids
        #expect(
            ids.count == expected.count && Set(ids) == expected,
            "\(ids.count) delivered (\(before) before the restart), \(expected.count) expected")
    }

    @Test func aReceiverThatRefusesForAWhileLosesNothing() throws {
        let directory = Paths.temporaryDirectory("follow-outage")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Up and accepting, then three refusals in a row (503, retried with backoff), then up again.
        let receiver = try LoopbackReceiver(connections: .keepAlive) { index in
            (1 ... 3).contains(index) ? LoopbackReceiver.Answer(status: 503) : LoopbackReceiver.Answer()
        }
        defer { receiver.stop() }
        let server = try Self.server(directory, seconds: 3)
        let follower = try Self.follower(directory, receiver)
        defer { Self.stop(follower) }
        server.waitUntilExit()
        let expected = try Self.expected(directory)
        try Self.waitFor(15) { try Self.delivered(receiver).ids.count >= expected.count }
        Self.stop(follower)
        let ids = try Self.delivered(receiver).ids
        #expect(receiver.requests.filter { $0.status == 503 }.count == 3)
        #expect(
            ids.count == expected.count && Set(ids) == expected, "\(ids.count) delivered, \(expected.count) expected")
    }
}
