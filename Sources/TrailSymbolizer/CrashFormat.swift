#if canImport(Glibc)
import Glibc
#endif
import TrailFormat

/// How symbolized crashes are printed: text for people, Markdown for reports, JSON for tools (close to the
/// Swift backtracer's JSON crash log: frames with address, symbol, offset, inlined and sourceLocation;
/// images with buildId and baseAddress).
public enum CrashFormat: String, Sendable, CaseIterable {
    case text, json, markdown

    public struct Options: Sendable {
        /// Lines of source shown around each frame's line, when the file is at hand.
        public var snippet = 0
        /// The log's name, for "at app.log:12".
        public var logName = "log"

        public init(snippet: Int = 0, logName: String = "log") {
            self.snippet = snippet
            self.logName = logName
        }
    }

    public func render(_ crashes: [SymbolizedCrash], _ options: Options) -> String {
        switch self {
        case .text: return crashes.indices.map { Self.text(crashes[$0], number: $0 + 1, of: crashes.count, options) }.joined(with: "\n")
        case .markdown: return crashes.enumerated().map { Self.markdown($1, number: $0 + 1, options) }.joined(separator: "\n")
        case .json: return "[" + crashes.map(Self.json).joined(separator: ",\n") + "]\n"
        }
    }

    // MARK: pieces shared by the formats

    /// "SIGSEGV (SEGV_MAPERR) at 0x8", or the reason of a reported error.
    public static func headline(_ block: CrashBlock) -> String {
        var parts: [String] = []
        if let signal = block.signal {
            var text = signal.name
            if let code = signal.code { text += " (\(code))" }
            if let address = signal.address, signal.name == CrashSignal.name(SIGSEGV) || signal.name == CrashSignal.name(SIGBUS) { text += " at \(address)" }
            parts.append(text)
        }
        if let reason = block.reason { parts.append(reason) }
        if parts.isEmpty { parts.append(block.kind == .error ? "error reported" : "crash") }
        return parts.joined(with: ": ")
    }

    /// A frame's function as people read it: simplified, as the Swift backtracer shows it.
    public static func name(_ frame: SymbolizedFrame) -> String {
        frame.mangledName.isEmpty ? frame.function : Demangler.shared.simplified(frame.mangledName)
    }

    static func location(_ frame: SymbolizedFrame) -> String? {
        guard let file = frame.file else { return nil }
        guard frame.line > 0 else { return file }
        return frame.column > 0 ? "\(file):\(frame.line):\(frame.column)" : "\(file):\(frame.line)"
    }

    static func hex(_ value: UInt64) -> String {
        var out = TextBuffer(capacity: 18)
        out.hex(value)
        return out.string
    }

    /// Source lines around `line`, the line itself marked.
    static func snippet(_ file: String, line: Int, context: Int) -> [String] {
        guard context > 0, line > 0, let handle = fopen(file, "r") else { return [] }
        defer { fclose(handle) }
        var lines: [String] = []
        var buffer = [CChar](repeating: 0, count: 4096)
        var number = 0
        while fgets(&buffer, Int32(buffer.count), handle) != nil {
            number += 1
            if number > line + context { break }
            guard number >= line - context else { continue }
            var text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasSuffix("\n") { text.removeLast() }
            lines.append("\(number == line ? ">" : " ") \(String(number).leftPadded(5, with: " ")) | \(text)")
        }
        return lines
    }

    // MARK: text

    static func text(_ crash: SymbolizedCrash, number: Int, of count: Int, _ options: Options) -> String {
        let block = crash.block
        var out = "\(block.kind == .crash ? "Crash" : "Error") \(number) of \(count), at \(options.logName):\(block.line): \(headline(block))\n"
        var facts: [String] = []
        if let time = block.time { facts.append(time) }
        if let app = block.app { facts.append("app \(app)") }
        if let pid = block.pid { facts.append("pid \(pid)") }
        if let thread = block.thread { facts.append("thread \(thread.tid) \"\(thread.name)\"") }
        if !facts.isEmpty { out += "  " + facts.joined(with: ", ") + "\n" }
        if !block.complete { out += "  (the block is cut short: what follows is what it holds)\n" }
        out += "\n"
        out += stack(crash, options)
        if !block.breadcrumbs.isEmpty {
            out += "\n  Last traced calls on this thread (trace: \(block.trace ?? "?")):\n"
            for crumb in block.breadcrumbs {
                out += "    \(crumb.offset.leftPadded(14, with: " "))  \(crumb.event.padding(11))\(crumb.site)\n"
            }
        }
        if !block.openCalls.isEmpty {
            out += "\n  Traced calls still open on this thread, outermost first:\n"
            for call in block.openCalls { out += "    \(call)\n" }
        }
        for note in crash.notes { out += "  note: \(note)\n" }
        return out
    }

    /// The text stack: per frame its number, address and image, then the function, offset and location, one
    /// line per inlined call.
    static func stack(_ crash: SymbolizedCrash, _ options: Options) -> String {
        var out = TextBuffer(capacity: 200 * crash.frames.count)
        for frame in crash.frames {
            let image = frame.image ?? "?"
            let start = out.bytes.count
            out.add(frame.index, width: 3)
            out.add(" ")
            out.hex(frame.address)
            out.add(" ")
            let width = out.bytes.count - start  // inlined calls' lines are indented as far
            guard !frame.frames.isEmpty else {
                out.add(image)
                out.add("  ??\n")
                continue
            }
            for (position, symbolized) in frame.frames.enumerated() {
                if position > 0 { out.spaces(width) }
                out.add(image)
                out.add(symbolized.inlined ? "  [inlined] " : "  ")
                out.add(name(symbolized))
                if let offset = symbolized.offset, !symbolized.inlined {
                    out.add(" + ")
                    out.add(offset)
                }
                if let file = symbolized.file {
                    out.add("  at ")
                    out.add(file)
                    if symbolized.line > 0 {
                        out.add(":")
                        out.add(symbolized.line)
                        if symbolized.column > 0 {
                            out.add(":")
                            out.add(symbolized.column)
                        }
                    }
                }
                out.add("\n")
                if let file = symbolized.file {
                    for text in snippet(file, line: symbolized.line, context: options.snippet) {
                        out.spaces(8)
                        out.add(text)
                        out.add("\n")
                    }
                }
            }
        }
        return out.string
    }

    /// This machine's, as the backtracer names it: crash logs are read where they were written.
    static var architecture: String {
        #if arch(arm64)
        return "arm64"
        #else
        return "x86_64"
        #endif
    }

    // MARK: markdown

    static func markdown(_ crash: SymbolizedCrash, number: Int, _ options: Options) -> String {
        let block = crash.block
        var out = "## \(block.kind == .crash ? "Crash" : "Error") \(number): \(headline(block))\n\n"
        var facts: [(String, String)] = []
        if let time = block.time { facts.append(("Time", time)) }
        if let app = block.app { facts.append(("App", app)) }
        if let pid = block.pid { facts.append(("Process", pid)) }
        if let thread = block.thread { facts.append(("Thread", "\(thread.tid) \(thread.name)")) }
        facts.append(("Log", "\(options.logName), line \(block.line)\(block.complete ? "" : " (cut short)")"))
        out += "| | |\n|---|---|\n" + facts.map { "| \($0.0) | \(escapeMarkdown($0.1)) |" }.joined(separator: "\n") + "\n\n"
        return out + markdownSections(crash, level: "###")
    }

    /// The stack, breadcrumbs, open calls and notes, under headings of `level`.
    static func markdownSections(_ crash: SymbolizedCrash, level: String) -> String {
        let block = crash.block
        var out = "\(level) Stack\n\n```\n"
        for frame in crash.frames {
            guard !frame.frames.isEmpty else {
                out += "\(String(frame.index).leftPadded(3, with: " ")) \(hex(frame.address)) \(frame.image ?? "?") ??\n"
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
            for crumb in block.breadcrumbs { out += "\(crumb.offset.leftPadded(14, with: " "))  \(crumb.event.padding(11))\(crumb.site)\n" }
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

    // MARK: json

    static func json(_ crash: SymbolizedCrash) -> String {
        let block = crash.block
        let q = JSONString.quote
        var frames: [String] = []
        for frame in crash.frames {
            let kind = frame.isReturnAddress ? "returnAddress" : "programCounter"
            if frame.frames.isEmpty {
                frames.append("{\"kind\":\"\(kind)\",\"address\":\(q(hex(frame.address))),\"image\":\(q(frame.image ?? ""))}")
            }
            for symbolized in frame.frames {
                var fields = ["\"kind\":\"\(kind)\"", "\"address\":\(q(hex(frame.address)))", "\"symbol\":\(q(symbolized.mangledName))",
                              "\"description\":\(q(symbolized.function))", "\"image\":\(q(frame.image ?? ""))"]
                if let offset = symbolized.offset, !symbolized.inlined { fields.append("\"offset\":\(offset)") }
                if symbolized.inlined { fields.append("\"inlined\":true") }
                if let file = symbolized.file, symbolized.line > 0 {
                    fields.append("\"sourceLocation\":{\"file\":\(q(file)),\"line\":\(symbolized.line),\"column\":\(symbolized.column)}")
                }
                frames.append("{" + fields.joined(separator: ",") + "}")
            }
        }
        let images = block.images.map { image in
            "{\"name\":\(q(image.path.split(separator: "/").last.map(String.init) ?? image.path)),\"path\":\(q(image.path)),"
                + "\"buildId\":\(q(image.buildID ?? "")),\"baseAddress\":\(q(hex(image.base))),\"endOfText\":\(q(hex(image.end)))}"
        }
        let crumbs = block.breadcrumbs.map { "{\"offset\":\(q($0.offset)),\"event\":\(q($0.event)),\"site\":\(q($0.site))}" }
        var fields = [
            "\"kind\":\(q(block.kind == .crash ? "crashReport" : "errorReport"))",
            "\"timestamp\":\(q(block.time ?? ""))",
            "\"description\":\(q(headline(block)))",
            "\"architecture\":\(q(Self.architecture))",
            "\"platform\":\"Linux\"",
        ]
        if let address = block.signal?.address { fields.append("\"faultAddress\":\(q(address))") }
        if let signal = block.signal { fields.append("\"signal\":{\"number\":\(signal.number),\"name\":\(q(signal.name)),\"code\":\(q(signal.code ?? ""))}") }
        if let app = block.app { fields.append("\"app\":\(q(app))") }
        if let pid = block.pid { fields.append("\"pid\":\(Int(pid).map(String.init) ?? q(pid))") }  // a number, unless the log is odd
        fields.append("\"complete\":\(block.complete)")
        let thread = block.thread
        fields.append("\"threads\":[{\"crashed\":true,\"id\":\(q(thread?.tid ?? "")),\"name\":\(q(thread?.name ?? "")),\"frames\":[\(frames.joined(separator: ","))]}]")
        fields.append("\"images\":[\(images.joined(separator: ","))]")
        fields.append("\"breadcrumbs\":[\(crumbs.joined(separator: ","))]")
        fields.append("\"openCalls\":[\(block.openCalls.map(q).joined(separator: ","))]")
        fields.append("\"notes\":[\(crash.notes.map(q).joined(separator: ","))]")
        return "{" + fields.joined(separator: ",") + "}"
    }
}
