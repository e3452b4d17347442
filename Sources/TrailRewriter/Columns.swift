import SwiftSyntax

/// What goes into build copies (`--line-directive`), whose diagnostics, `#column`, debug info and crash stacks
/// must name the original line and column. When code follows a body's brace on its line, the inserted text
/// ends the line, and `#sourceLocation` with padding puts the rest back at its line and byte column (compiler
/// columns count UTF-8 bytes). `strip` knows these shapes (`Rewriter.stripExtent`).
struct Columns {
    var file: String
    var lines: SourceLines

    struct Entry {
        var text: String
        /// The implicit return of the expression that follows the brace is in `text`.
        var returnsFirst: Bool
    }

    private func directive(line: Int) -> String { "#sourceLocation(file: \(Marker.literal(file)), line: \(line))" }

    /// The entry text after a brace at `offset`; `firstToken` starts the body, and `returnsFirst` says it needs
    /// an explicit `return`.
    func entry(_ code: String, at offset: Int, firstToken: Int, returnsFirst: Bool) -> Entry {
        let line = lines.line(of: offset)
        let padding = offset - lines.start(ofLine: line)
        if lines.line(of: firstToken) == line {
            // Code follows on the brace line: end the line, then restore line and column.
            let broken = Marker.open + code + "\n" + Marker.close
            if !returnsFirst {
                return Entry(text: broken + directive(line: line) + "\n" + spaces(padding), returnsFirst: false)
            }
            // `return` takes 7 of the padding's columns; with fewer, it goes on the line before, which is
            // still one statement (a directive between `return` and its expression would end it).
            if padding >= 7 {
                return Entry(
                    text: broken + directive(line: line) + "\n" + spaces(padding - 7) + "return ", returnsFirst: true)
            }
            if line > 1 {
                return Entry(
                    text: broken + directive(line: line - 1) + "\nreturn\n" + spaces(padding), returnsFirst: true)
            }
            return Entry(text: Marker.wrap(code), returnsFirst: false)
        }
        guard returnsFirst else { return Entry(text: Marker.wrap(code), returnsFirst: false) }
        // Only comments and line breaks before the expression: `return` ends the brace line, in any column but
        // the expression's (the compiler warns when they line up).
        let returnColumn = padding + Marker.open.utf8.count + code.utf8.count + 2
        let separator = returnColumn == column(of: firstToken) ? "  " : " "
        return Entry(text: Marker.wrap(code + separator + "return"), returnsFirst: true)
    }

    /// `code` inserted at `offset`, with `next` the token that follows: when that token is on the same line, the
    /// inserted text ends the line and the rest goes back to its line and column, as after an entry.
    func insertion(_ code: String, at offset: Int, before next: TokenSyntax) -> Edit {
        let line = lines.line(of: offset)
        guard lines.line(of: next.positionAfterSkippingLeadingTrivia.utf8Offset) == line else {
            return Edit(offset: offset, text: Marker.wrap(code))
        }
        let padding = offset - lines.start(ofLine: line)
        return Edit(
            offset: offset,
            text: Marker.open + code + "\n" + Marker.close + directive(line: line) + "\n" + spaces(padding))
    }

    /// `return` for an expression at `offset` on a line of its own (in a `#if` clause): on a line before it,
    /// numbered as the line before, so the expression keeps its line and column.
    func explicitReturn(at offset: Int) -> Edit {
        let line = lines.line(of: offset)
        let start = lines.start(ofLine: line)
        guard line > 1, lines.isBlank(start ..< offset) else {
            return Edit(offset: offset, text: Marker.explicitReturn)
        }
        let keyword = column(of: offset) == 1 ? " return" : "return"
        return Edit(offset: start, text: Marker.open + directive(line: line - 1) + "\n" + keyword + Marker.close + "\n")
    }

    private func column(of offset: Int) -> Int { offset - lines.start(ofLine: lines.line(of: offset)) + 1 }

    private func spaces(_ count: Int) -> String { String(repeating: " ", count: count) }
}
