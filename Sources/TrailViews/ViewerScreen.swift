import TrailTrace

/// One line of the screen and how to show it; the terminal turns `style` into colours, or into nothing but
/// reverse video for the selection when colours are off.
public struct ScreenLine: Sendable, Equatable {
    public enum Style: Sendable { case title, plain, selected, dim, status }
    public var text: String
    public var style: Style
}

extension ViewerState {
    /// The whole screen, `height` lines of at most `width` characters: a title, the body, a status line.
    public mutating func screen(width: Int, height: Int) -> [ScreenLine] {
        let body = max(1, height - 2)
        scroll(height: body)
        var lines: [ScreenLine] = []
        switch mode {
        case .tree:
            lines.append(ScreenLine(text: "  DURATION      TID   FUNCTION", style: .title))
            for row in top ..< min(rows.count, top + body) {
                lines.append(ScreenLine(text: treeLine(rows[row]), style: row == selected ? .selected : .plain))
            }
        case .report:
            lines.append(
                ScreenLine(
                    text: report.header + (tree.finished ? "" : "  partial: \(readPercent)% read"), style: .title)
            )
            for row in report.top ..< min(report.entries.count, report.top + body) {
                lines.append(ScreenLine(text: report.line(row), style: row == report.selected ? .selected : .plain))
            }
        case .graph:
            let partial =
                !tree.finished
                ? "  (of the calls read so far)"
                : tree.skipped > 0 ? "  (of the first \(tree.calls.count) calls, not the \(tree.skipped) after)" : ""
            lines.append(ScreenLine(text: "Graph of \(graph.function)" + partial, style: .title))
            for row in graph.top ..< min(graph.lines.count, graph.top + body) {
                let line = graph.lines[row]
                lines.append(
                    ScreenLine(
                        text: line.text, style: row == graph.selected ? .selected : line.name == nil ? .dim : .plain))
            }
        }
        while lines.count < height - 1 { lines.append(ScreenLine(text: "", style: .plain)) }
        lines.append(ScreenLine(text: status, style: .status))
        return lines.map { line in
            var line = line
            if line.text.count > width { line.text = String(line.text.prefix(width)) }
            if line.style == .selected || line.style == .status || line.style == .title {
                line.text += String(repeating: " ", count: max(0, width - line.text.count))
            }
            return line
        }
    }

    /// `  12.345 us  [ 1234]   - M.f()`: its time, its thread, a fold mark (`+` folded, `-` open) and the
    /// name indented by depth, then what `trail replay` marks too: spans, async calls, tasks, a thread's first
    /// call; a child process's row is `[process PID EXE]`, its pid in the thread's column.
    func treeLine(_ index: Int32) -> String {
        let call = tree.calls[Int(index)]
        let tid = String(tree.tid(index))
        let mark = call.firstChild < 0 ? "  " : folded.contains(index) ? "+ " : "- "
        let time =
            !call.ended
            ? (tree.finished ? "          " : " (reading)")
            : call.unfinished
                ? "  (no end)" : DurationFormat.format(call.duration)
        let marks = call.marks
        var name = tree.shownName(index)
        if marks.contains(.process) { name = "[" + name + "]" }
        if marks.contains(.span) { name += " [span]" }
        if marks.contains(.context) { name += " [context]" }
        if marks.contains(.async) { name += " [async]" }
        if call.task > 0 { name += (marks.contains(.childTask) ? " [child task " : " [task ") + "\(call.task)]" }
        if let thread = tree.threadNames[index] { name += " [thread " + thread + "]" }
        return time + "  [" + String(repeating: " ", count: max(0, 6 - tid.count)) + tid + "]  "
            + String(repeating: "  ", count: Int(call.depth)) + mark + name
    }

    /// How much of the traces is read, in percent of their bytes.
    var readPercent: Int { tree.totalBytes > 0 ? min(100, tree.bytesRead * 100 / tree.totalBytes) : 0 }

    var status: String {
        let position: String
        switch mode {
        case .tree: position = "call tree \(rows.isEmpty ? 0 : selected + 1)/\(rows.count)"
        case .report: position = "report \(report.selected + 1)/\(report.entries.count)"
        case .graph: position = "graph \(graph.selected + 1)/\(graph.lines.count)"
        }
        let reading = tree.finished ? "" : "  reading \(readPercent)%"
        let skipped = tree.skipped > 0 ? "  (\(tree.skipped) calls past the first \(tree.calls.count) not shown)" : ""
        let hint = "  q quit  ? help"
        return " " + position + reading + (message.isEmpty ? "" : "  " + message) + skipped + hint
    }

    /// The `?` screen.
    public static let help = [
        "trail tui keys (uftrace tui's where it has them)",
        "",
        "  Up/Down, j/k      move          PgUp/PgDn, Home/End (g/G)  page, first, last",
        "  Enter             fold or unfold the call; in report and graph: show the function's first call",
        "  c                 fold the call's children     e  unfold everything     1-9  show that many levels",
        "  R  report mode    T  tree mode    G  graph of the selected function    s  next sort column (report)",
        "  /  search         n, N  next and previous match     S  the slowest call, then the next slowest",
        "  F  filter by function glob    t  hide calls shorter than a time    (empty: no filter)",
        "  o  open the call's source in $EDITOR at its line   q  quit (also Ctrl-C)",
        "",
        "press any key",
    ]
}
