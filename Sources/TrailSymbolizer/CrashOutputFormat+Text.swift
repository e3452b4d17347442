import TrailFormat

#if canImport(Glibc)
import Glibc
#endif

/// `--format text`: a crash for people to read in a terminal.
extension CrashOutputFormat {
    static func text(_ crash: SymbolizedCrash, number: Int, of count: Int, _ options: Options) -> String {
        let block = crash.block
        var out =
            "\(block.kind == .crash ? "Crash" : "Error") \(number) of \(count), at \(options.logName):\(block.line): \(headline(block))\n"
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
}
