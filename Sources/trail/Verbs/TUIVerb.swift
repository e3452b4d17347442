import Foundation
import TrailCommandLine
import TrailTrace
import TrailViews

let tuiVerb = Verb(
    name: "tui",
    summary: "Explore traces full screen: the call tree with folds, a report, a function's graph.",
    usage: "[options] \(traceArgument)",
    details: traceDetails
        + """
         Keys as uftrace tui's: arrows or j/k move, Enter folds, R report, G graph, T tree, / n N search,
        S the slowest calls, o opens the source in $EDITOR, ? help, q quits. NO_COLOR or --color=never: no colours.
        """,
    options: [
        .value(
            "--filter", "-F", placeholder: "GLOB",
            help: "Only calls matching GLOB (comma-separated), with what they call."),
        .value(
            "--min-duration", "-t", placeholder: "TIME",
            help: "Hide calls shorter than TIME, with its unit (500ns, 10us, 1.5ms, 2s)."),
        .value("--thread", placeholder: "TID", help: "Only this thread (repeatable).", repeatable: true),
        .value(
            "--time-range", "-r", placeholder: "START~END",
            help: "Only calls within this time since recording started (1ms~2.5ms, ~5ms, 2ms~)."),
        .value("--limit", placeholder: "N", help: "Keep the first N calls as rows (default 2000000)."),
        .value("--color", placeholder: "WHEN", help: "auto (default: unless NO_COLOR is set), always or never."),
    ],
    run: { arguments in
        guard isatty(1) == 1, isatty(0) == 1 else {
            throw VerbFailure(
                "standard input and output must be a terminal; 'trail replay' and 'trail report' print instead")
        }
        var limit = 2_000_000
        if let text = arguments.value("limit") {
            guard let value = Int(text), value > 0 else {
                throw UsageError(description: "--limit needs a positive number, not '\(text)'")
            }
            limit = value
        }
        let noColor = !(ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
        let colored: Bool
        switch arguments.value("color") ?? "auto" {
        case "auto": colored = !noColor && ProcessInfo.processInfo.environment["TERM"] != "dumb"
        case "always": colored = true
        case "never": colored = false
        case let other: throw UsageError(description: "--color: auto, always or never, not '\(other)'")
        }
        var minDuration: Double = 0
        if let time = arguments.value("min-duration") {
            guard let value = DurationFormat.parse(time) else {
                throw UsageError(description: DurationFormat.problem(time, option: "--min-duration"))
            }
            minDuration = value
        }
        var threads = Set<UInt32>()
        for tid in arguments.all("thread") {
            guard let value = UInt32(tid) else {
                throw UsageError(description: "--thread needs a thread id, not '\(tid)'")
            }
            threads.insert(value)
        }
        var timeRange: ClosedRange<Double>?
        if let text = arguments.value("time-range") {
            guard let range = ViewerState.timeRange(text) else {
                throw UsageError(
                    description: "--time-range: START~END, each a time with its unit (1ms~2.5ms, ~5ms, 2ms~), "
                        + "not '\(text)'")
            }
            timeRange = range
        }
        let files = try openTraces(arguments)
        let loading = try TUILoading()
        // For tests that act while a trace is read: seconds to wait after each block.
        let sliceDelay = ProcessInfo.processInfo.environment["TRAIL_TUI_SLICE_DELAY"].flatMap(Double.init) ?? 0
        loading.start(files, limit: limit, sliceDelay: sliceDelay)
        var tree = CallTree()
        // Room for the rows at once: an array that doubles holds both copies a moment, too much at 2M rows.
        tree.reserve(min(limit, 4_000_000))
        var state = ViewerState(tree: tree)
        state.minDuration = minDuration
        state.threads = threads
        state.filter = arguments.value("filter").map(NamePattern.init)
        state.timeRange = timeRange
        // The first rows, or the news that there are none, before the screen is taken; a large trace's
        // first slice is there within milliseconds.
        let waitUntil = Date().addingTimeInterval(1)
        while state.tree.calls.isEmpty, !state.tree.finished, Date() < waitUntil {
            var poller = pollfd(fd: loading.wakeDescriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&poller, 1, 50)
            for rows in loading.take() { state.absorb(rows) }
        }
        if state.tree.finished, state.tree.calls.isEmpty {
            // The last slice comes just before the reading lets go of the files.
            while !loading.isDone { usleep(1000) }
            reportGaps(files)
            throw VerbFailure("no calls to show")
        }
        state.rebuild()
        let terminal = TUITerminal(colors: colored)
        terminal.enter()
        runViewer(&state, terminal, loading, files)
        terminal.leave()
        loading.stop()
        // The files are this thread's again only once the reading is done with them.
        if loading.isDone { reportGaps(files) }
        return 0
    })

/// Draws, reads a key or the reading's news, acts, until `q`.
private func runViewer(
    _ state: inout ViewerState, _ terminal: TUITerminal, _ loading: TUILoading, _ files: [TraceFile]
) {
    var help = false
    var lastRebuild = Date()
    var noted = false
    while true {
        for rows in loading.take() { state.absorb(rows) }
        // A rebuild passes over every row: while rows pour in, a few times a second.
        if state.stale, state.tree.finished || Date().timeIntervalSince(lastRebuild) > 0.25 {
            state.refreshRows()
            lastRebuild = Date()
        }
        if state.tree.finished, !noted {
            noted = true
            if state.tree.calls.isEmpty {
                state.say("no calls to show")
            } else if loading.isDone, files.contains(where: { $0.truncated || !$0.complete }) {
                state.say("a trace ends early or is still being written: showing what is there")
            }
        }
        let (width, height) = terminal.size
        if width < 40 || height < 8 {
            terminal.write("\u{1B}[H\u{1B}[2J" + "terminal too small (\(width)x\(height)); at least 40x8, or q")
        } else if help {
            let lines = ViewerState.help + Array(repeating: "", count: max(0, height - ViewerState.help.count))
            terminal.draw(lines.prefix(height).map { (String($0.prefix(width)), "") })
        } else {
            terminal.draw(
                state.screen(width: width, height: height).map { line in
                    (
                        line.text,
                        terminal.style(
                            title: line.style == .title, selected: line.style == .selected, dim: line.style == .dim,
                            status: line.style == .status)
                    )
                })
        }
        var key = terminal.readKey(wake: loading.wakeDescriptor, timeout: state.stale ? 250 : -1)
        if key == .wake || key == .timeout {
            // News from the reading is drawn at most ten times a second, keys at once.
            key = terminal.readKey(timeout: 100)
            if key == .timeout { continue }
        }
        if key == .resize || terminalResized != 0 {
            terminalResized = 0
            terminal.write("\u{1B}[2J")
            if key == .resize { continue }
        }
        if help {
            help = false
            continue
        }
        let page = max(1, height - 3)
        switch key {
        case .character("q"): return
        case .up, .character("k"): state.move(-1)
        case .down, .character("j"): state.move(1)
        case .pageUp: state.move(-page)
        case .pageDown, .character(" "): state.move(page)
        case .home, .character("g"): state.move(-Int(Int32.max))
        case .end: state.move(Int(Int32.max))
        case .enter: state.toggle()
        case .character("c"): state.collapseChildren()
        case .character("e"): state.showLevels(0)
        case .character(let digit) where ("1" ... "9").contains(digit): state.showLevels(Int(String(digit))!)
        case .character("R"): state.showReport()
        case .character("T"): state.showTree()
        case .character("G"): state.showGraph()
        case .character("s"): state.nextSortKey()
        case .character("/"):
            if let text = prompt("/", terminal, height: height), !text.isEmpty { state.search(text) }
        case .character("n"): state.findNext(forward: true)
        case .character("N"): state.findNext(forward: false)
        case .character("S"): state.nextSlowest()
        case .character("F"):
            if let text = prompt("filter (glob): ", terminal, height: height) {
                state.filter = text.isEmpty ? nil : NamePattern(text)
                state.rebuild()
                state.say(text.isEmpty ? "no filter" : "filter \(text)")
            }
        case .character("t"):
            if let text = prompt("hide calls shorter than: ", terminal, height: height) {
                if let value = text.isEmpty ? 0 : DurationFormat.parse(text) {
                    state.minDuration = value
                    state.rebuild()
                    state.say(text.isEmpty ? "every call" : "calls of \(text) or more")
                } else {
                    state.say(DurationFormat.problem(text, option: "t"))
                }
            }
        case .character("o"): openEditor(&state, terminal)
        case .character("?"), .character("h"): help = true
        default: break
        }
    }
}

/// A line typed on the status line; nil when Escape cancels it.
private func prompt(_ label: String, _ terminal: TUITerminal, height: Int) -> String? {
    var text = ""
    while true {
        terminal.write("\u{1B}[\(height);1H\u{1B}[2K" + label + text + "\u{1B}[?25h")
        let key = terminal.readKey()
        switch key {
        case .enter:
            terminal.write("\u{1B}[?25l")
            return text
        case .escape:
            terminal.write("\u{1B}[?25l")
            return nil
        case .backspace: if !text.isEmpty { text.removeLast() }
        case .character(let character): text.append(character)
        default: break
        }
    }
}

/// `$EDITOR +LINE FILE` with the terminal handed back meanwhile. A site's file is `Module/File.swift`, found
/// here or under `Sources/`.
private func openEditor(_ state: inout ViewerState, _ terminal: TUITerminal) {
    guard let location = state.selectedLocation else { return state.say("this call has no source location") }
    let editor = ProcessInfo.processInfo.environment["VISUAL"] ?? ProcessInfo.processInfo.environment["EDITOR"]
    guard let editor, !editor.isEmpty else { return state.say("set EDITOR to open \(location.path)") }
    let path = [location.path, "Sources/" + location.path].first { FileManager.default.fileExists(atPath: $0) }
    guard let path else { return state.say("\(location.path) is not here or under Sources/") }
    terminal.leave()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", editor + " +\(location.line) \"$0\"", path]
    try? process.run()
    process.waitUntilExit()
    terminal.enter()
}
