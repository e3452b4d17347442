import TrailFormat

#if canImport(Glibc)
import Glibc
#endif

/// How symbolized crashes are printed: text for people, Markdown for reports, JSON for tools (close to the
/// Swift backtracer's JSON crash log: frames with address, symbol, offset, inlined and sourceLocation;
/// images with buildId and baseAddress).
public enum CrashOutputFormat: String, Sendable, CaseIterable {
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
        case .text:
            return crashes.indices.map { Self.text(crashes[$0], number: $0 + 1, of: crashes.count, options) }.joined(
                with: "\n")
        case .markdown:
            return crashes.enumerated().map { Self.markdown($1, number: $0 + 1, options) }.joined(separator: "\n")
        case .json: return "[" + crashes.map(Self.json).joined(separator: ",\n") + "]\n"
        }
    }

    // MARK: pieces shared by the formats

    /// "SIGSEGV (SEGV_MAPERR) at 0x8", or the reason of a reported error.
    /// A crash's stack as the text format prints it: a line per frame and inlined call (for OTLP's
    /// `exception.stacktrace`).
    public static func stackText(_ crash: SymbolizedCrash) -> String { stack(crash, Options()) }

    public static func headline(_ block: CrashBlock) -> String {
        var parts: [String] = []
        if let signal = block.signal {
            var text = signal.name
            if let code = signal.code { text += " (\(code))" }
            if let address = signal.address,
                signal.name == CrashSignal.name(SIGSEGV) || signal.name == CrashSignal.name(SIGBUS)
            {
                text += " at \(address)"
            }
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

    /// Source lines around `line`, the line itself marked, numbered as the compiler numbered them: a file with
    /// `#sourceLocation` directives (a plugin copy of `main.swift` names itself, after a `#if DEBUG` line) is
    /// read through them, and what `trail instrument` inserted is left out of the text shown.
    static func snippet(_ file: String, line: Int, context: Int) -> [String] {
        guard context > 0, line > 0, let handle = fopen(file, "r") else { return [] }
        defer { fclose(handle) }
        var lines: [String] = []
        var buffer = [CChar](repeating: 0, count: 4096)
        var physical = 0
        var logical = 0
        var mapped = true  // the lines are this file's, as far as the directives say
        var seen = false
        var insideInsertion = false
        while fgets(&buffer, Int32(buffer.count), handle) != nil {
            physical += 1
            logical += 1
            var text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasSuffix("\n") { text.removeLast() }
            let shown = Self.withoutInsertions(text, inside: &insideInsertion)
            if let directive = SourceLocationDirective(text) {
                // The next line is the directive's line of its file, or (`#sourceLocation()`) this file's own.
                mapped =
                    directive.file.map {
                        $0 == file || $0.split(separator: "/").last == file.split(separator: "/").last
                    } ?? true
                logical = (directive.line ?? physical + 1) - 1
                continue
            }
            guard mapped else { continue }
            if logical > line + context {
                if seen { break } else { continue }
            }
            guard logical >= line - context else { continue }
            if logical == line { seen = true }
            lines.append("\(logical == line ? ">" : " ") \(String(logical).leftPadded(5, with: " ")) | \(shown)")
        }
        return seen ? lines : []
    }

    /// A line without what `trail instrument` inserted: `/*<trail*/ ... /*trail>*/`, to the end of the line when
    /// the insertion goes on past it.
    /// `inside`: an insertion opened on an earlier line is still open (it is updated for the next line).
    static func withoutInsertions(_ text: String, inside: inout Bool) -> String {
        var rest = Substring(text)
        var out = ""
        while true {
            if inside {
                guard let close = rest.range(of: "/*trail>*/") else { return out }
                rest = rest[close.upperBound...]
                inside = false
            }
            guard let open = rest.range(of: "/*<trail*/") else { return out + rest }
            out += rest[..<open.lowerBound]
            rest = rest[open.upperBound...]
            inside = true
        }
    }
}

/// `#sourceLocation(file: "F", line: N)` or `#sourceLocation()`, alone on its line after the marker that
/// `trail instrument` may put before it.
struct SourceLocationDirective {
    var file: String?
    var line: Int?

    init?(_ text: String) {
        var body = Substring(text)
        for marker in ["/*trail>*/", "/*<trail*/"] where body.hasPrefix(marker) { body = body.dropFirst(marker.count) }
        body = body.drop { $0 == " " || $0 == "\t" }
        guard body.hasPrefix("#sourceLocation(") else { return nil }
        body = body.dropFirst("#sourceLocation(".count)
        if body.hasPrefix(")") { return }
        guard let fileStart = body.range(of: "file: \""),
            let fileEnd = body[fileStart.upperBound...].range(of: "\", line: "),
            let number = Int(body[fileEnd.upperBound...].prefix { $0.isNumber })
        else { return nil }
        file = String(body[fileStart.upperBound ..< fileEnd.lowerBound])
        line = number
    }
}
