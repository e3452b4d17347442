import Foundation
import TrailDriver

@testable import TrailRewriter

/// Instruments `source` and returns the text, failing on anything but a change.
func instrumented(
    _ source: String, module: String = "M", path: String = "/tmp/F.swift", closures: Bool = false,
    inlinable: Bool = false, builders: Set<String> = [], lineDirectiveFile: String? = nil
) throws -> String {
    let settings = InstrumentSettings(
        closures: closures, inlinable: inlinable, declared: [Declarations(resultBuilders: builders)])
    switch try settings.instrument(Array(source.utf8), path: path, module: module, lineDirectiveFile: lineDirectiveFile)
    {
    case .changed(let bytes, _): return String(decoding: bytes, as: UTF8.self)
    case .unchanged: return source
    case .skipped(let reason): return "skipped: \(reason)"
    }
}

func stripped(_ source: String) throws -> String {
    switch try Rewriter.strip(Array(source.utf8), path: "/tmp/F.swift") {
    case .changed(let bytes, _): return String(decoding: bytes, as: UTF8.self)
    default: return source
    }
}

/// The site names a rewrite inserted, in source order.
func sites(_ text: String) -> [String] {
    let regex = try! NSRegularExpression(pattern: #"Trail\.enter(?:Async)?\("([^"]*) @ [^"]*"\)"#)
    let range = NSRange(text.startIndex..., in: text)
    return regex.matches(in: text, range: range).map { String(text[Range($0.range(at: 1), in: text)!]) }
}

func lineCount(_ text: String) -> Int { text.split(separator: "\n", omittingEmptySubsequences: false).count }
