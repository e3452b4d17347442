import Foundation
import Testing
import TrailTestSupport

/// The span details queue is bounded (spans.c): what it cannot hold is dropped, and the program's stderr says
/// how many at exit, since the trace then holds those spans without their names and attributes.
@Suite struct SpanDetailsTests {
    static let built = CProbe.build("SpanFlood/span_flood.c", named: "span-flood")

    @Test func droppedSpanDetailsAreReportedAtExit() throws {
        let probe = try #require(Self.built.path, "\(Self.built.failure)")
        let traces = Paths.temporaryDirectory("span-flood")
        defer { try? FileManager.default.removeItem(atPath: traces) }
        let result = try run(
            probe, [],
            environment: [
                "TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": traces + "/%p.trace", "SWIFT_BACKTRACE": "enable=no",
            ])
        #expect(result.status == 0, "some details were dropped: \(result.stderr)")
        // 4 MiB holds 63 entries of 64 KiB and their 20-byte headers.
        #expect(
            result.stderr.contains(
                "trail: the details of 37 spans were dropped (more than 4 MiB queued at once); the spans are recorded without them"
            ), "\(result.stderr)")
        let replay = try run(Paths.trail, ["replay", traces], check: true)
        #expect(replay.stdout.contains("SpanFlood.main()"), "the trace is whole: \(replay.stdout)")
    }
}
