import Foundation
import Testing
import TrailTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Log mode's lines carry the trace and span ids of their call, as recorded calls do (issue: span ids in log
/// mode), so that they join a distributed trace: TRACEPARENT, trace contexts, headers and children agree.
@Suite struct LogModeIDsTests {
    static let caller = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    static let callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"

    struct Line {
        var tid: String, entering: Bool, name: String, traceID: String, spanID: String
    }

    /// `[trail TID] <indent>-> Name  (File:line)  trace_id=… span_id=…` and `<- Name  <duration>  …`.
    static func lines(_ text: String) -> [Line] {
        let pattern = try! NSRegularExpression(
            pattern: #"^\[trail (\d+)\] *(->|<-) (.+?)(?:  .*)?  trace_id=([0-9a-f]{32}) span_id=([0-9a-f]{16})$"#)
        return text.split(separator: "\n").compactMap { raw in
            let line = String(raw)
            guard let match = pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) else {
                return nil
            }
            func group(_ index: Int) -> String { String(line[Range(match.range(at: index), in: line)!]) }
            return Line(tid: group(1), entering: group(2) == "->", name: group(3), traceID: group(4), spanID: group(5))
        }
    }

    /// Each call's two lines share a span id no other call has.
    static func expectPairedIDs(_ lines: [Line], sourceLocation: SourceLocation = #_sourceLocation) {
        let entries = lines.filter(\.entering)
        let exits = lines.filter { !$0.entering }
        #expect(
            Set(entries.map(\.spanID)).count == entries.count, "a span id used twice", sourceLocation: sourceLocation)
        #expect(Set(entries.map(\.spanID)) == Set(exits.map(\.spanID)), sourceLocation: sourceLocation)
        for exit in exits {
            #expect(
                entries.first { $0.spanID == exit.spanID }?.name == exit.name, "\(exit.name)",
                sourceLocation: sourceLocation)
        }
    }

    @Test func linesNameTheProcessTraceAndTheirCall() throws {
        let directory = Paths.temporaryDirectory("logids")
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.calls, directory, 50), environment: ["TRAIL_TRACE": "1"],
            check: true)
        let lines = Self.lines(result.stderr)
        #expect(lines.count == 100, "\(result.stderr.prefix(600))")
        Self.expectPairedIDs(lines)
        // The process's own trace: wall-clock start, pid, host hash (Docs/trace-format.md).
        let traceIDs = Set(lines.map(\.traceID))
        #expect(traceIDs.count == 1)
        let pid = try #require(lines.first.flatMap { Int($0.tid) })
        #expect(traceIDs.first?.dropFirst(16).prefix(8) == Substring(String(format: "%08x", pid)))
    }

    @Test func asyncCallsAcrossThreadsAndAnInheritedTraceparent() throws {
        let directory = Paths.temporaryDirectory("logids-async")
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.async, directory, 20),
            environment: ["TRAIL_TRACE": "1", "TRACEPARENT": Self.caller],
            check: true)
        let lines = Self.lines(result.stderr)
        #expect(lines.filter { $0.name == "Probe.hop(_:)" }.count == 40, "\(result.stderr.prefix(600))")
        #expect(Set(lines.map(\.traceID)) == [Self.callerTrace], "the caller's trace")
        Self.expectPairedIDs(lines)
    }

    /// Inside Trail.withTraceContext a log-mode line belongs to the caller's trace, as the JSON log lines and the
    /// header sent on do; the header names the log-mode call that sends it.
    @Test func traceContextLinesJSONLinesAndTheHeaderAgree() throws {
        let directory = Paths.temporaryDirectory("logids-context")
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.context, directory, Self.caller),
            environment: ["TRAIL_TRACE": "1", "TRAIL_LOG_FORMAT": "json"], check: true)
        var calls: [Line] = []
        var infos: [[String: Any]] = []
        for raw in Transcript.read(directory + "/probe.log").split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(raw.utf8)) as? [String: Any])
            let trace = object["trace_id"] as? String ?? ""
            let span = object["span_id"] as? String ?? ""
            if object["label"] as? String == "trace", let message = object["message"] as? String {
                calls += Self.lines(message + "  trace_id=\(trace) span_id=\(span)")
            } else {
                infos.append(object)
            }
        }
        let inside = calls.filter { $0.name.hasPrefix("Probe.") }
        #expect(Set(inside.map(\.name)) == ["Probe.nothing()", "Probe.relay()", "Probe.leaf()", "Probe.work()"])
        #expect(Set(inside.map(\.traceID)) == [Self.callerTrace], "calls inside the context are in the caller's trace")
        Self.expectPairedIDs(calls)
        let line = try #require(infos.first { $0["message"] as? String == "inside context" })
        #expect(line["trace_id"] as? String == Self.callerTrace && line["span_id"] as? String == "00f067aa0ba902b7")
        let relay = try #require(inside.first { $0.name == "Probe.relay()" })
        #expect(result.stdout.contains("relay 00-\(Self.callerTrace)-\(relay.spanID)-01"), "\(result.stdout)")
        #expect(result.stdout.contains("outside none"))
    }

    /// Children started in log mode (environment inherited) are in the parent's trace.
    @Test func childrenJoinTheParentsTrace() throws {
        let directory = Paths.temporaryDirectory("logids-children")
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.spawnMany, directory, 3), environment: ["TRAIL_TRACE": "1"],
            check: true)
        let lines = Self.lines(result.stderr)
        let spawner = try #require(lines.first { $0.name == "Probe.spawner(_:_:)" })
        let children = lines.filter { $0.tid != spawner.tid }
        #expect(Set(children.map(\.tid)).count == 3 && children.count == 60, "\(result.stderr.prefix(600))")
        #expect(Set(lines.map(\.traceID)) == [spawner.traceID])
        #expect(Set(lines.map(\.spanID)).count == 31, "span ids are unique across the processes")
    }
}
