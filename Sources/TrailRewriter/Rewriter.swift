import SwiftDiagnostics
import SwiftParserDiagnostics
import SwiftSyntax
import TrailFormat

/// A problem in an input file, printed as `path:line:column: error: message`.
public typealias SourceError = InputError

/// Inserts and removes trace calls in one file's text. Parsing is the cost, so each call parses once (twice
/// when re-instrumenting an instrumented file) and splices edits into the original bytes.
public enum Rewriter {
    public static func instrument(_ text: SourceText, options: InstrumentOptions) throws(SourceError) -> RewriteOutcome
    {
        let path = text.path
        let source = text.bytes
        return try text.unmarked.withUnsafeBufferPointer { (buffer) throws(SourceError) -> RewriteOutcome in
            let tree = Parsing.parse(buffer, features: options.experimentalFeatures)
            try rejectSyntaxErrors(tree, path: path)
            if contains(source, Array(Marker.ignoreFile.utf8)), hasComment(tree, containing: Marker.ignoreFile) {
                return .skipped("marked \(Marker.ignoreFile)")
            }
            let lines = SourceLines(buffer, keepingText: options.lineDirectiveFile != nil)
            let collector = BodyCollector(
                options: options, lines: lines, fileID: fileID(path: path, module: options.module))
            collector.walk(tree)
            var edits = collector.edits
            if !edits.isEmpty { edits.append(importEdit(tree, buffer)) }
            let result = Edit.apply(edits, to: buffer)
            return result == source ? .unchanged : .changed(result, bodies: collector.bodies)
        }
    }

    public static func strip(_ source: [UInt8], path: String, experimentalFeatures: [String] = []) throws(SourceError)
        -> RewriteOutcome
    {
        try checkUTF8(source, path: path)
        guard contains(source, Marker.openBytes) else { return .unchanged }
        return try source.withUnsafeBufferPointer { (buffer) throws(SourceError) -> RewriteOutcome in
            let tree = Parsing.parse(buffer, features: experimentalFeatures)
            try rejectSyntaxErrors(tree, path: path)
            var edits: [Edit] = []
            var open: Int?
            for comment in markerComments(tree) {
                switch (comment.isOpen, open) {
                case (true, nil): open = comment.start
                case (false, let start?):
                    let end = try stripExtent(buffer, open: start, close: comment, path: path)
                    edits.append(Edit(offset: start, length: end - start, text: ""))
                    open = nil
                default:
                    let line = SourceLines(buffer).line(of: comment.start)
                    throw SourceError(path: path, line: line, message: "unbalanced trail marker; file left unchanged")
                }
            }
            if let start = open {
                throw SourceError(
                    path: path, line: SourceLines(buffer).line(of: start),
                    message: "unclosed trail marker; file left unchanged")
            }
            if edits.isEmpty { return .unchanged }
            return .changed(Edit.apply(edits, to: buffer), bodies: edits.count)
        }
    }

    /// Whether the parser knows an experimental feature by this compiler name.
    public static func isExperimentalFeature(_ name: String) -> Bool { Parsing.feature(named: name) != nil }

    /// Where an insertion ends: at its closing marker, or in build copies (`Columns`) past the line break and
    /// padding that follow it: after `return` on a line of its own, the line break; after
    /// `/*trail>*/#sourceLocation(...)`, that line and the padding of the next, which is as wide as the text
    /// before the opening marker (7 columns of it may be `return `, or a line `return` may come first).
    private static func stripExtent(
        _ buffer: UnsafeBufferPointer<UInt8>, open: Int, close: MarkerComment,
        path: String
    ) throws(SourceError) -> Int {
        func has(_ text: String, at offset: Int) -> Bool {
            let bytes = Array(text.utf8)
            return offset >= 0 && offset + bytes.count <= buffer.count
                && buffer[offset ..< offset + bytes.count].elementsEqual(bytes)
        }
        func spaces(_ count: Int, at offset: Int) -> Bool {
            offset + count <= buffer.count && buffer[offset ..< offset + count].allSatisfy { $0 == UInt8(ascii: " ") }
        }
        let inner = close.start
        if has("\nreturn", at: inner - 7) || has("\n return", at: inner - 8), has("\n", at: close.end) {
            return close.end + 1
        }
        guard has("#sourceLocation(", at: close.end),
            let lineEnd = buffer[close.end...].firstIndex(of: UInt8(ascii: "\n"))
        else { return close.end }
        var lineStart = open
        while lineStart > 0, buffer[lineStart - 1] != UInt8(ascii: "\n") { lineStart -= 1 }
        let padding = open - lineStart - insertedWidth(buffer, lineStart ..< open)
        var end = lineEnd + 1
        if has("return\n", at: end) { end += 7 }
        if spaces(padding, at: end)
            || (padding >= 7 && spaces(padding - 7, at: end) && has("return ", at: end + padding - 7))
        {
            return end + padding
        }
        let line = SourceLines(buffer).line(of: end)
        throw SourceError(
            path: path, line: line, message: "trail marker followed by unexpected text; file left unchanged")
    }

    /// The bytes of whole insertions in `range` (an `unsafe ` marked before a value): the padding after a directive
    /// matches the line's columns without them.
    private static func insertedWidth(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int {
        let open = Array(Marker.open.utf8)
        let close = Array(Marker.close.utf8)
        func has(_ bytes: [UInt8], at offset: Int) -> Bool {
            offset + bytes.count <= range.upperBound && buffer[offset ..< offset + bytes.count].elementsEqual(bytes)
        }
        var width = 0
        var cursor = range.lowerBound
        while cursor < range.upperBound {
            guard has(open, at: cursor) else {
                cursor += 1
                continue
            }
            var end = cursor + open.count
            while end < range.upperBound, !has(close, at: end) { end += 1 }
            guard end < range.upperBound else { break }
            width += end + close.count - cursor
            cursor = end + close.count
        }
        return width
    }

    /// `Module/File.swift`, the form of `#fileID`.
    static func fileID(path: String, module: String) -> String {
        let base = path.split(separator: "/").last.map(String.init) ?? path
        return "\(module)/\(base)"
    }

    // MARK: Helpers

    static func checkUTF8(_ source: [UInt8], path: String) throws(SourceError) {
        if String(validating: source, as: UTF8.self) != nil { return }
        // Find the first bad byte to name its line.
        var line = 1
        var offset = 0
        var iterator = source.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar == "\n" { line += 1 }
                offset += UTF8.width(scalar)
            case .emptyInput:
                return
            case .error:
                throw SourceError(
                    path: path, line: line, message: "not valid UTF-8 (byte \(offset)); file left unchanged")
            }
        }
    }

    private static func rejectSyntaxErrors(_ tree: SourceFileSyntax, path: String) throws(SourceError) {
        guard tree.hasError else { return }
        let converter = SourceLocationConverter(fileName: path, tree: tree)
        let first = ParseDiagnosticsGenerator.diagnostics(for: tree).first { $0.diagMessage.severity == .error }
        let location = first?.location(converter: converter)
        throw SourceError(
            path: path, line: location?.line ?? 1, column: location?.column ?? 1,
            message: (first?.message ?? "syntax error") + "; file left unchanged")
    }

    /// The import of `Trail`, in the same place in place and in a build copy, so that both compile alike: after
    /// the first top-level import on its line
    /// (`import Foundation/*<trail*/; import enum Trail.Trail; import TrailExit/*trail>*/`), else after the first statement that is
    /// not a `#if` block, else at the end of the file: no line moves,
    /// and no line starts with the marker's `/*`. SwiftPM decides whether a one-file executable's `@main` needs
    /// `-parse-as-library` by reading lines, and takes a line that starts with `/*` and does not end with `*/`
    /// for the start of a comment that hides the rest of the file. A file that does not end with a newline gets
    /// one inside the marker; one that ends inside a `//` comment, where the marker would not be a comment of
    /// its own, gets the import at the start (`startOffset`).
    private static func importEdit(_ tree: SourceFileSyntax, _ buffer: UnsafeBufferPointer<UInt8>) -> Edit {
        for item in tree.statements {
            if case .decl(let decl) = item.item, decl.is(ImportDeclSyntax.self) {
                return Edit(offset: decl.endPositionBeforeTrailingTrivia.utf8Offset, text: Marker.importAfterImport)
            }
        }
        // No import outside `#if`: after the first statement that is not a `#if` block, on its line. At the end of
        // the file the import's line would move with every line added below, and with it the object file's debug
        // information, so a one-line edit would relink every product that uses the module.
        for item in tree.statements
        where !item.item.is(IfConfigDeclSyntax.self) && !item.item.is(PoundSourceLocationSyntax.self) {
            return Edit(offset: item.endPositionBeforeTrailingTrivia.utf8Offset, text: Marker.importAfterImport)
        }
        if let last = buffer.last, last == UInt8(ascii: "\n") {
            return Edit(offset: buffer.count, text: Marker.importAtEnd)
        }
        let end = tree.endOfFileToken
        let trivia =
            end.leadingTrivia.isEmpty ? end.previousToken(viewMode: .sourceAccurate)?.trailingTrivia : end.leadingTrivia
        let lastTrivia = trivia?.pieces.last
        switch lastTrivia {
        case .lineComment?, .docLineComment?: return Edit(offset: startOffset(buffer), text: Marker.importTrail)
        default: return Edit(offset: buffer.count, text: Marker.importOnNewLine)
        }
    }

    /// The start of a file with no import that ends inside a `//` comment: after a `#!` line, sharing a line with
    /// existing text, so no line moves.
    private static func startOffset(_ buffer: UnsafeBufferPointer<UInt8>) -> Int {
        if buffer.count >= 2, buffer[0] == UInt8(ascii: "#"), buffer[1] == UInt8(ascii: "!") {
            return (buffer.firstIndex(of: UInt8(ascii: "\n")) ?? buffer.count - 1) + 1
        }
        return 0
    }

    struct MarkerComment {
        var start: Int
        var end: Int
        var isOpen: Bool
    }

    /// Every marker that is a real comment, in source order.
    private static func markerComments(_ tree: SourceFileSyntax) -> [MarkerComment] {
        var found: [MarkerComment] = []
        func scan(_ trivia: Trivia, from start: Int) {
            var offset = start
            for piece in trivia {
                let length = piece.sourceLength.utf8Length
                if case .blockComment(let text) = piece, text == Marker.open || text == Marker.close {
                    found.append(MarkerComment(start: offset, end: offset + length, isOpen: text == Marker.open))
                }
                offset += length
            }
        }
        for token in tree.tokens(viewMode: .sourceAccurate) {
            if !token.leadingTrivia.isEmpty { scan(token.leadingTrivia, from: token.position.utf8Offset) }
            if !token.trailingTrivia.isEmpty {
                scan(token.trailingTrivia, from: token.endPositionBeforeTrailingTrivia.utf8Offset)
            }
        }
        return found
    }

    private static func hasComment(_ tree: SourceFileSyntax, containing text: String) -> Bool {
        for token in tree.tokens(viewMode: .sourceAccurate) {
            for piece in token.leadingTrivia {
                switch piece {
                case .lineComment(let comment), .blockComment(let comment), .docLineComment(let comment),
                    .docBlockComment(let comment):
                    if comment.contains(text) { return true }
                default: continue
                }
            }
        }
        return false
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, haystack.count >= needle.count else { return false }
        var index = 0
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first, haystack[index ..< index + needle.count].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }
}
