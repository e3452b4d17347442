import Foundation
import Testing
import TrailTestSupport
import TrailTrace

/// Record mode: the trace file the runtime writes, read back by the viewers' library.
@Suite struct RecorderTests {
    @Test func asyncCallsThatHopThreadsHaveMatchedExits() throws {
        let directory = Paths.temporaryDirectory("async")
        let file = directory + "/probe.trace"
        let result = try run(Paths.buildDirectory + "/trail-probe", ["async", directory, "20"],
                             environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": file], check: true)
        #expect(result.stdout.contains("done"))
        let trace = try TraceFile(path: file)
        #expect(trace.complete)
        #expect(trace.droppedTotal == 0)

        // Raw records: every async entry token has exactly one exit with the same token.
        var entries: [UInt64: UInt32] = [:], exits: [UInt64: UInt32] = [:]
        for (slot, thread) in trace.threads {
            var records = thread.records.makeIterator()
            while let record = records.next() {
                guard record.kind == .asyncEnter || record.kind == .asyncExit, let aux = records.next() else { continue }
                #expect(aux.kind == .aux)
                if record.kind == .asyncEnter { entries[aux.time] = slot } else { exits[aux.time] = slot }
            }
        }
        #expect(entries.count == 20 + 40)
        #expect(Set(entries.keys) == Set(exits.keys))
        #expect(entries.contains { exits[$0.key] != $0.value }, "some async call resumed on another thread")

        // The call tree: every call ended, and each synchronous work() hangs under the async call of its task,
        // whichever thread ran it. Child tasks (the task group's) start trees of their own.
        let tree = CallTree(trace)
        let hops = tree.calls.filter { $0.isAsync }
        #expect(hops.count == 60)
        #expect(hops.allSatisfy { $0.end != nil })
        #expect(hops.contains { $0.exitThread != nil })
        let names = { (index: Int) in tree.sites[tree.calls[index].site].name }
        let rounds = tree.roots.filter { names($0) == "Probe.hop(_:)" }
        let leaves = tree.roots.filter { names($0) == "Probe.leaf()" }
        #expect(rounds.count == 20)
        #expect(leaves.count == 40)
        #expect(tree.roots.count == 60)
        for call in rounds + leaves {
            #expect(tree.calls[call].children.map(names) == ["Probe.work()"])
        }
    }
}
