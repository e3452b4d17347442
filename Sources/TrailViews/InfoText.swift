import Foundation
import TrailFormat
import TrailTrace

#if canImport(Glibc)
import Glibc
#endif

/// `trail info`'s text: one `# key : value` block per trace, as `uftrace info` prints its own.
public enum InfoText {
    public static func render(_ facts: TraceFacts) -> String {
        var rows: [(String, String)] = [("trace", facts.path)]
        rows.append(("program", facts.info["exe"] ?? "(not recorded)"))
        // Written by the tracer since the INFO chunk had them; older traces go without.
        if let command = facts.info[TraceInfo.Key.commandLine.rawValue] { rows.append(("command line", command)) }
        if let app = facts.info["app"] { rows.append(("app", app)) }
        if let version = facts.info["version"] { rows.append(("app version", version)) }
        if let buildID = facts.info[TraceInfo.Key.buildID.rawValue] { rows.append(("build id", buildID)) }
        rows.append(("host", facts.info["host"] ?? "(not recorded)"))
        rows.append(("pid", String(facts.pid)))
        rows.append(("started", wallClock(facts.startWallNanoseconds)))
        rows.append(("duration", trimmed(facts.durationNanoseconds)))
        rows.append(("state", state(facts)))
        var calls = "\(facts.calls)"
        let kinds = [
            (facts.asyncCalls, "async"), (facts.spans, "spans"), (facts.unfinished, "never returned"),
        ].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        if !kinds.isEmpty { calls += " (" + kinds.joined(separator: ", ") + ")" }
        rows.append(("calls", calls))
        rows.append(("records", facts.records.map(String.init) ?? "(no end record)"))
        rows.append(("threads", threads(facts)))
        rows.append(("tasks", String(facts.tasks)))
        rows.append(("dropped records", String(facts.dropped)))
        if facts.cutRecords > 0 { rows.append(("cut records", "\(facts.cutRecords) (size limit)")) }
        rows.append(("size", size(facts)))
        rows.append(("trace id", facts.traceID))
        rows.append(("parent", facts.info["traceparent"] ?? "none"))
        rows.append(("format version", String(facts.formatVersion)))
        return rows.map { "# " + $0.0.padding(toLength: 16, withPad: " ", startingAt: 0) + ": " + $0.1 }
            .joined(separator: "\n") + "\n"
    }

    /// A duration as the viewers print it, without the alignment.
    public static func trimmed(_ nanoseconds: Double) -> String {
        String(DurationFormat.format(nanoseconds).drop { $0 == " " })
    }

    static func state(_ facts: TraceFacts) -> String {
        if facts.truncated { return "ends early (the process died while writing?)" }
        if !facts.complete { return "no end record (crashed, killed, or still running)" }
        return "complete"
    }

    static func threads(_ facts: TraceFacts) -> String {
        let named = facts.threads.map { $0.name.isEmpty ? String($0.tid) : "\($0.tid) \($0.name)" }
        return "\(facts.threads.count)" + (named.isEmpty ? "" : ": " + named.joined(separator: ", "))
    }

    static func size(_ facts: TraceFacts) -> String {
        var text = bytes(facts.fileSize)
        guard facts.cap > 0 else { return text + ", no size limit" }
        text += " of " + bytes(facts.cap)
        text += facts.policy == 2 ? ", keeping the first records" : ", keeping the last records"
        if facts.wrapped { text += " (wrapped)" }
        return text
    }

    /// `123 B`, `4.0 KiB`, `1.5 MiB`, `2.0 GiB`.
    public static func bytes(_ count: UInt64) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB"]
        guard count >= 1024 else { return "\(count) B" }
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return String(format: "%.1f", value) + " " + units[unit]
    }

    /// `2026-12-05 21:46:06.123456 UTC`.
    static func wallClock(_ nanoseconds: UInt64) -> String {
        var seconds = time_t(nanoseconds / 1_000_000_000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02d %02d:%02d:%02d.%06d UTC", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec),
            Int(nanoseconds % 1_000_000_000 / 1000))
    }
}
