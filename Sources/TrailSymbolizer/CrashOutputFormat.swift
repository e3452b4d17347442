#if canImport(Glibc)
import Glibc
#endif
import TrailFormat

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
        case .text: return crashes.indices.map { Self.text(crashes[$0], number: $0 + 1, of: crashes.count, options) }.joined(with: "\n")
        case .markdown: return crashes.enumerated().map { Self.markdown($1, number: $0 + 1, options) }.joined(separator: "\n")
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
}
