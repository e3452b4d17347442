import TrailFormat

#if canImport(Glibc)
import Glibc
#endif

/// A report as Markdown or JSON, sanitized unless asked otherwise.
extension CrashReport {
    public func markdown(sanitized: Bool) -> String {
        let block = crash.block
        var out =
            "# Crash report: \(block.app ?? block.executable.map { ($0 as String).split(separator: "/").last.map(String.init) ?? $0 } ?? "app")\n\n"
        out += "**\(CrashOutputFormat.headline(block))**\(runtimeMessage.map { "\n\n> \($0)" } ?? "")\n\n"
        var facts: [(String, String)] = [("Time", block.time ?? "?")]
        if let app = block.app { facts.append(("App", app)) }
        if let exe = block.executable { facts.append(("Executable", exe)) }
        facts.append(("Build ID", executableBuildID ?? "none"))
        facts.append(("System", "\(system), \(kernel)"))
        if let pid = block.pid { facts.append(("Process", pid)) }
        if let thread = block.thread { facts.append(("Thread", "\(thread.tid) \(thread.name)")) }
        facts.append(("Log", logFile))
        out +=
            "| | |\n|---|---|\n"
            + facts.map { "| \($0.0) | \(CrashOutputFormat.escapeMarkdown($0.1)) |" }.joined(separator: "\n") + "\n\n"
        out += CrashOutputFormat.markdownSections(crash, level: "##")
        out +=
            "\n## Log before the crash (last \(logTail.count) lines)\n\n```\n" + logTail.joined(separator: "\n")
            + "\n```\n"
        return sanitized ? Self.sanitize(out) : out
    }

    public func json(sanitized: Bool) -> String {
        let q = JSONString.quote
        var fields = [
            "\"crash\":" + CrashOutputFormat.json(crash),
            "\"logFile\":\(q(logFile))",
            "\"logTail\":[\(logTail.map(q).joined(separator: ","))]",
            "\"system\":\(q(system))",
            "\"kernel\":\(q(kernel))",
            "\"buildId\":\(q(executableBuildID ?? ""))",
        ]
        if let runtimeMessage { fields.append("\"runtimeMessage\":\(q(runtimeMessage))") }
        let out = "{" + fields.joined(separator: ",") + "}\n"
        return sanitized ? Self.sanitize(out) : out
    }
}
