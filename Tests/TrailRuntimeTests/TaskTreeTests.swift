import Foundation
import Testing
import TrailTestSupport
import TrailTrace

/// A real async trace read back through the viewers' reader: async calls that hop threads end, and task-group
/// children hang under the async call that created them.
@Suite struct TaskTreeTests {
    @Test func asyncCallsThatHopThreadsHaveMatchedExits() throws {
        let directory = Paths.temporaryDirectory("async")
        let file = directory + "/probe.trace"
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.async, directory, 20),
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": file], check: true)
        #expect(result.stdout.contains("done"))
        let trace = try TraceFile(path: file)
        var calls = CollectCalls()
        CallStream().stream([trace], into: &calls)
        #expect(trace.complete)
        #expect(trace.endDropped == 0)

        // Every async entry has its exit, some on another thread; each synchronous work() hangs under the
        // async call of its task, whichever thread ran it, and the task group's leaves under the hop that
        // created them.
        let name = { (call: CallEvent) in calls.sites![call.site].name }
        let hops = calls.calls.filter { $0.isAsync }
        #expect(hops.count == 60)
        #expect(hops.allSatisfy { !$0.unfinished })
        // Hops usually resume on another thread; on a loaded machine a run may have none, which proves nothing
        // either way, so only the exits' matching (above) is required of every run.
        let hopped = hops.filter { $0.exitThread != $0.thread }
        #expect(hopped.allSatisfy { $0.exitThread >= 0 })
        let bySpan = Dictionary(uniqueKeysWithValues: calls.calls.map { ($0.spanId, $0) })
        let rounds = calls.calls.filter { name($0) == "Probe.hop(_:)" }
        let leaves = calls.calls.filter { name($0) == "Probe.leaf()" }
        #expect(rounds.count == 20 && rounds.allSatisfy { $0.parentSpanId == 0 })
        #expect(leaves.count == 40)
        for leaf in leaves { #expect(bySpan[leaf.parentSpanId].map(name) == "Probe.hop(_:)") }
        let works = calls.calls.filter { name($0) == "Probe.work()" }
        #expect(works.count == 60)
        for work in works { #expect(bySpan[work.parentSpanId]?.isAsync == true) }
    }
}

/// Every call of a small trace, as it ended.
struct CollectCalls: CallVisitor {
    var calls: [CallEvent] = []
    var sites: SiteTable?

    mutating func beginProcess(_ process: TraceProcess) { sites = process.sites }
    mutating func exit(_ call: CallEvent, tag: Int32) { calls.append(call) }
}
