import TrailFormat

#if canImport(Glibc)
import Glibc
#endif

/// `--format markdown`: a crash for a bug report.
extension CrashOutputFormat {
    static func markdown(_ crash: SymbolizedCrash, number: Int, _ options: Options) -> String {
        let block = crash.block
        var out = "## \(block.kind == .crash ? "Crash" : "Error") \(number): \(headline(block))\n\n"
        var facts: [(String, String)] = []
        if let time = block.time { facts.append(("Time", time)) }
        if let app = block.app { facts.append(("App", app)) }
        if let pid = block.pid { facts.append(("Process", pid)) }
        if let thread = block.thread { facts.append(("Thread", "\(thread.tid) \(thread.name)")) }
        facts.append(("Log", "\(options.logName), line \(block.line)\(block.complete ? "" : " (cut short)")"))
        out +=
            "| | |\n|---|---|\n" + facts.map { "| \($0.0) | \(escapeMarkdown($0.1)) |" }.joined(separator: "\n")
            + "\n\n"
        return out + markdownSections(crash, level: "###")
    }

    /// The stack, breadcrumbs, open calls and notes, under headings of `level`.
    static func markdownSections(_ crash: SymbolizedCrash, level: String) -> String {
        let block = crash.block
        var out = "\(level) Stack\n\n```\n"
        for frame in crash.frames {
            guard !frame.frames.isEmpty else {
                out +=
                    "\(String(frame.index).leftPadded(3, with: " ")) \(hex(frame.address)) \(frame.image ?? "?") ??\n"
                continue
            }
            for (position, symbolized) in frame.frames.enumerated() {
                let number = position == 0 ? String(frame.index).leftPadded(3, with: " ") : "   "
                var line = "\(number) \(symbolized.inlined ? "[inlined] " : "")\(name(symbolized))"
                if let location = location(symbolized) { line += " at \(location)" }
                out += line + "\n"
            }
        }
        out += "```\n"
        if !block.breadcrumbs.isEmpty {
            out += "\n\(level) Last traced calls\n\n```\n"
            for crumb in block.breadcrumbs {
                out += "\(crumb.offset.leftPadded(14, with: " "))  \(crumb.event.padding(11))\(crumb.site)\n"
            }
            out += "```\n"
        }
        if !block.openCalls.isEmpty {
            out += "\n\(level) Open traced calls\n\n```\n" + block.openCalls.joined(separator: "\n") + "\n```\n"
        }
        if !crash.notes.isEmpty { out += "\n" + crash.notes.map { "> \($0)" }.joined(separator: "\n") + "\n" }
        return out
    }

    static func escapeMarkdown(_ text: String) -> String {
        text.split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|")
    }
}
