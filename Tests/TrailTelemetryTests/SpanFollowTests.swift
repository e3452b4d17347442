import Foundation
import Testing
import TrailTelemetry
import TrailTestSupport

/// `SpanFollow` in process, on a trace the runtime probe wrote. (FollowTests runs `trail` beside a live process.)
@Suite struct SpanFollowTests {
    @Test func anEndedTraceIsSentWholeAndARestartSendsNothingAgain() throws {
        let folder = Paths.temporaryDirectory("follow-spans")
        try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.calls, folder, 10),
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": folder + "/calls.trace"], check: true)
        let sink = CapturedRequests()
        var said: [String] = []
        func follower() throws -> SpanFollow {
            var follow = try SpanFollow(
                output: FollowOutput(sink: sink, batch: 512, name: "test", say: { said.append($0) }),
                roots: [folder], cursorPath: SpanFollow.defaultCursor([folder]), export: TraceExport())
            follow.timing.flushInterval = 0
            return follow
        }
        var first = try follower()
        // The trace holds its END chunk: the rounds read it, end its calls, and the delivery marks it done.
        for _ in 0 ..< 3 { try first.step() }
        try first.flush()
        let names = try sink.spanNames()
        #expect(names.filter { $0.hasSuffix("nothing()") }.count == 10)
        #expect(first.sent == names.count)
        #expect(first.cursor.entries[folder + "/calls.trace"]?.done == true)
        var second = try follower()
        for _ in 0 ..< 2 { try second.step() }
        try second.flush()
        #expect(second.sent == 0)
        #expect(try sink.spanNames() == names)
        #expect(said.isEmpty)
    }
}
