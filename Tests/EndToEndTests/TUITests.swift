import Foundation
import Testing
import TrailTestSupport

/// `trail tui` used as a person uses it, through tmux: keys typed with `send-keys`, the screen read with
/// `capture-pane`, on the ItemStore demo's trace. After each run the shell behind it says how `trail` exited
/// and whether the terminal is back in canonical mode with echo.
@Suite(.serialized) struct TUITests {
    /// A tmux session running `trail tui` in a shell, killed when done.
    struct Screen {
        let name: String

        init(
            _ arguments: String, width: Int = 120, height: Int = 40, environment: String = "",
            directory: String = Paths.packageRoot
        ) throws {
            name = "trail-tui-\(getpid())-\(UUID().uuidString.prefix(6))"
            let command =
                "\(environment) \(Paths.trail) tui \(arguments); echo EXITED $?; "
                + "stty -a | tr ' ;' '\\n\\n' | grep -x -e '-\\?icanon' -e '-\\?echo' | tr '\\n' ' '; echo; echo STTY; sleep 60"
            let arguments = ["new-session", "-d", "-s", name, "-x", "\(width)", "-y", "\(height)", "-c", directory]
            // The tmux server exits with its last session: a session started as the last test's closes can find it
            // going away, and is started again.
            for _ in 0 ..< 4 {
                if try run("tmux", arguments + [command]).status == 0 { return }
                usleep(200_000)
            }
            _ = try run("tmux", arguments + [command], check: true)
        }

        func keys(_ keys: String...) throws { _ = try run("tmux", ["send-keys", "-t", name] + keys, check: true) }

        func text(escapes: Bool = false) throws -> String {
            try run("tmux", ["capture-pane", "-p", "-t", name] + (escapes ? ["-e"] : []), check: true).stdout
        }

        /// The screen once it shows `expected`, or as it is after five seconds.
        @discardableResult
        func wait(for expected: String, escapes: Bool = false) throws -> String {
            var screen = ""
            for _ in 0 ..< 100 {
                screen = try text(escapes: escapes)
                if screen.contains(expected) { return screen }
                usleep(50_000)
            }
            Issue.record("the screen never showed '\(expected)':\n\(screen)")
            return screen
        }

        var alternateScreen: Bool {
            (try? run("tmux", ["display", "-p", "-t", name, "#{alternate_on}"]).stdout) == "1\n"
        }

        var trailPid: Int32? {
            guard let shell = try? run("tmux", ["list-panes", "-t", name, "-F", "#{pane_pid}"]).stdout,
                let children = try? run("pgrep", ["-P", shell.trimmingCharacters(in: .whitespacesAndNewlines)])
            else { return nil }
            return Int32(children.stdout.split(separator: "\n").first ?? "")
        }

        func close() { _ = try? run("tmux", ["kill-session", "-t", name]) }
    }

    static var trace: String { ViewerVerbsTests.trace }

    @Test func moveFoldSearchSwitchModesAndQuit() throws {
        let screen = try Screen(Self.trace)
        defer { screen.close() }
        var shown = try screen.wait(for: "call tree 1/45")
        #expect(shown.contains("  - ItemStore.Command.run(on:) [async]"))
        #expect(screen.alternateScreen)
        try screen.keys("j", "j", "j", "j", "Down", "Enter")
        shown = try screen.wait(for: "call tree 6/6")
        #expect(shown.contains("+ ItemStore.Demo.run(on:) [async]"))
        try screen.keys("Enter", "2")
        shown = try screen.wait(for: "2 levels")
        #expect(shown.contains("- ItemStore.Command.run(on:)") && shown.contains("+ ItemStore.Demo.run(on:)"))
        #expect(!shown.contains("Store.create"))
        try screen.keys("/", "position", "Enter")
        shown = try screen.wait(for: "/position")
        #expect(shown.contains("ItemStore.Store.edit(serial:name:value:)"), "unfolded to show the match")
        try screen.keys("n", "n", "N")
        try screen.keys("G")
        shown = try screen.wait(for: "Graph of ItemStore.Store.position(of:)")
        #expect(shown.contains("hit 2, "), "called twice from remove(serial:)")
        try screen.keys("R")
        shown = try screen.wait(for: "sorted by total")
        try screen.keys("s")
        try screen.wait(for: "sorted by self")
        try screen.keys("T", "F", "ItemStore.Store.remove*", "Enter")
        shown = try screen.wait(for: "filter ItemStore.Store.remove*")
        #expect(shown.contains("ItemStore.Store.remove(serial:)") && !shown.contains("Store.create"))
        try screen.keys("F", "Enter")
        try screen.wait(for: "no filter")
        try screen.keys("S")
        try screen.wait(for: "slowest #1")
        try screen.keys("?")
        try screen.wait(for: "trail tui keys")
        try screen.keys("x", "q")
        shown = try screen.wait(for: "STTY")
        #expect(shown.contains("EXITED 0\nicanon echo"), "the terminal's modes restored:\n\(shown)")
        #expect(!screen.alternateScreen)
    }

    /// `o` hands the terminal to `$EDITOR` with the call's line and file (its site's `Module/File.swift`, found
    /// under `Sources/` of the folder `trail tui` runs in), then takes it back.
    @Test func openTheSelectedCallInTheEditor() throws {
        let folder = Paths.temporaryDirectory("editor")
        let editor = folder + "/editor"
        try "#!/bin/sh\necho \"$@\" > \(folder)/opened\n".write(toFile: editor, atomically: true, encoding: .utf8)
        chmod(editor, 0o755)
        let screen = try Screen(Self.trace, environment: "EDITOR=\(editor)", directory: ItemStoreTests.sample.directory)
        defer { screen.close() }
        try screen.wait(for: "call tree 1/45")
        try screen.keys("o")
        var opened = ""
        for _ in 0 ..< 100 where opened.isEmpty {
            opened = Transcript.read(folder + "/opened")
            usleep(50_000)
        }
        #expect(opened == "+24 Sources/ItemStore/Commands.swift\n", "ItemStore.Command.init(_:)'s site")
        try screen.wait(for: "call tree 1/45")
        #expect(screen.alternateScreen)
        try screen.keys("q")
        try screen.wait(for: "STTY")
    }

    @Test func coloursUnlessNoColorAndRestoredOnASignal() throws {
        let colored = try Screen(Self.trace, environment: "env -u NO_COLOR")
        defer { colored.close() }
        let escapes = try colored.wait(for: "call tree 1/45", escapes: true)
        #expect(escapes.contains("\u{1B}[46m"), "the selection in cyan")
        let pid = try #require(colored.trailPid)
        kill(pid, SIGTERM)
        let shown = try colored.wait(for: "STTY")
        #expect(shown.contains("EXITED 143\nicanon echo") && !colored.alternateScreen)

        let plain = try Screen(Self.trace, environment: "NO_COLOR=1")
        defer { plain.close() }
        let reverse = try plain.wait(for: "call tree 1/45", escapes: true)
        #expect(!reverse.contains("\u{1B}[46m") && reverse.contains("\u{1B}[7m"), "reverse video only")
        try plain.keys("C-c")
        try plain.wait(for: "EXITED 0")
    }

    @Test func tooSmallThenResizedAndBadInput() throws {
        let screen = try Screen(Self.trace, width: 30, height: 6)
        defer { screen.close() }
        try screen.wait(for: "terminal too small (30x6)")
        _ = try run("tmux", ["resize-window", "-t", screen.name, "-x", "100", "-y", "30"], check: true)
        try screen.wait(for: "call tree 1/45")
        try screen.keys("q")
        try screen.wait(for: "EXITED 0")

        let piped = try run(Paths.trail, ["tui", Self.trace])
        #expect(piped.status == 1 && piped.stderr.contains("trail tui: standard input and output must be a terminal"))
        let folder = Paths.temporaryDirectory("tui")
        try Data("not a trace at all".utf8).write(to: URL(fileURLWithPath: folder + "/bad.trace"))
        let bad = try Screen(folder + "/bad.trace")
        defer { bad.close() }
        let refused = try bad.wait(for: "STTY")
        #expect(refused.contains("bad.trace: not a trail trace file") && refused.contains("EXITED 1\nicanon echo"))
    }

    /// The first screen shows while a trace is still being read (slowed down to a block a second; the trace, a
    /// second of requests, is some 16 blocks): keys work meanwhile, the status line and the report say how much
    /// is read, and q stops the reading and gives the terminal back at once.
    @Test func keysWorkWhileReadingAndQuitStopsTheReading() throws {
        let folder = Paths.temporaryDirectory("tui-reading")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.steady, folder, 1, 100_000),
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": folder + "/steady.trace"], check: true)
        let screen = try Screen(folder + "/steady.trace", environment: "TRAIL_TUI_SLICE_DELAY=1")
        defer { screen.close() }
        // The first rows, not only the status line: keys pressed before any row is there move nothing, and on a
        // loaded machine the first slice can come after "reading 0%" is drawn.
        var shown = try screen.wait(for: "call tree 1/")
        #expect(shown.contains("reading ") && shown.contains("- Probe.request(_:)"))
        try screen.keys("j", "j")
        shown = try screen.wait(for: "call tree 3/")
        #expect(shown.contains("reading "), "still reading:\n\(shown)")
        try screen.keys("R")
        shown = try screen.wait(for: "% read")
        #expect(shown.contains("partial: ") && shown.contains("Probe.request(_:)"))
        try screen.keys("T")
        try screen.wait(for: "call tree 3/")
        let asked = Date()
        try screen.keys("q")
        shown = try screen.wait(for: "STTY")
        #expect(Date().timeIntervalSince(asked) < 3, "q quits without waiting for the reading")
        #expect(shown.contains("EXITED 0\nicanon echo"), "the terminal's modes restored:\n\(shown)")
        #expect(!screen.alternateScreen)
    }

    /// A child process shows under the call that started it, in a row of its own with its pid, as `trail replay`
    /// prints it; its calls hang below that row.
    @Test func childProcessesUnderTheCallThatStartedThem() throws {
        let folder = Paths.temporaryDirectory("tui-children")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.spawnMany, folder, 2),
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": folder + "/%p.trace"], check: true)
        let screen = try Screen(folder)
        defer { screen.close() }
        let shown = try screen.wait(for: "call tree 1/23")
        let lines = shown.split(separator: "\n").map(String.init)
        #expect(lines[1].hasSuffix("]  - Probe.spawner(_:_:) [task 1]"), "\(shown)")
        #expect(lines[2].contains("]    - [process ") && lines[2].hasSuffix(" trail-probe]"), "\(shown)")
        #expect(lines[3].hasSuffix("]        Probe.nothing() [task 1]"), "\(shown)")
        #expect(lines.filter { $0.contains("[process ") }.count == 2)
        try screen.keys("j", "Enter")
        try screen.wait(for: "call tree 2/13")
        try screen.keys("q")
        try screen.wait(for: "EXITED 0")
    }
}
