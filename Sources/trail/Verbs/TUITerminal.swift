#if canImport(Glibc)
import Glibc
#endif

/// The terminal `trail tui` draws on, by hand: raw mode through termios and a few ANSI escapes (the alternate
/// screen, cursor moves, SGR styles), which every terminal over ssh understands. The settings it found are
/// restored on every way out: a return, a thrown error, and the signals that end a process (the handler puts
/// them back with calls that are safe there, then lets the signal go on).
final class TUITerminal {
    enum Key: Equatable {
        case character(Character)
        case up, down, left, right, pageUp, pageDown, home, end, enter, escape, backspace
        case resize
        /// The reading has rows for the screen (`TUILoading`), or the wait ran out.
        case wake, timeout
        case other
    }

    let colors: Bool

    init(colors: Bool) {
        self.colors = colors
    }

    var size: (width: Int, height: Int) {
        var window = winsize()
        guard ioctl(1, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0 else { return (80, 24) }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    func enter() {
        tcgetattr(0, &terminalSaved)
        terminalHasSaved = true
        var raw = terminalSaved
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_oflag &= ~tcflag_t(OPOST)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        raw.c_cflag |= tcflag_t(CS8)
        tcsetattr(0, TCSAFLUSH, &raw)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGTRAP, SIGFPE] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in
                restoreTerminal()
                Glibc.signal(signal, SIG_DFL)
                raise(signal)
            }
            sigaction(signal, &action, nil)
        }
        var resize = sigaction()
        // No SA_RESTART: the read waiting for a key returns, and the screen is drawn at the new size.
        resize.__sigaction_handler.sa_handler = { _ in terminalResized = 1 }
        sigaction(SIGWINCH, &resize, nil)
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J")
    }

    func leave() {
        restoreTerminal()
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGTRAP, SIGFPE, SIGWINCH] {
            Glibc.signal(signal, SIG_DFL)
        }
    }

    func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(1, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0, errno == EINTR { continue }
                if written <= 0 { return }
                offset += written
            }
        }
    }

    /// Draws `lines` from the top left, each cleared to the end of its line.
    func draw(_ lines: [(text: String, style: String)]) {
        var out = "\u{1B}[H"
        for (number, line) in lines.enumerated() {
            out += "\u{1B}[2K" + line.style + line.text + "\u{1B}[0m"
            if number < lines.count - 1 { out += "\r\n" }
        }
        write(out)
    }

    /// The escape that starts a style: colours, or only reverse video and bold without them.
    func style(title: Bool = false, selected: Bool = false, dim: Bool = false, status: Bool = false) -> String {
        if selected { return colors ? "\u{1B}[30;46m" : "\u{1B}[7m" }
        if status { return colors ? "\u{1B}[1;37;44m" : "\u{1B}[7m" }
        if title { return colors ? "\u{1B}[1;33m" : "\u{1B}[1m" }
        if dim { return colors ? "\u{1B}[2m" : "" }
        return ""
    }

    /// The next key; or `.wake` when `wake` (a descriptor polled with the keyboard) is readable first, or
    /// `.timeout` after `timeout` ms (-1: none).
    func readKey(wake: Int32 = -1, timeout: Int32 = -1) -> Key {
        var pollers = [
            pollfd(fd: 0, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
        ]
        let ready = poll(&pollers, wake >= 0 ? 2 : 1, timeout)
        if ready == 0 { return .timeout }
        if ready < 0 { return terminalResized != 0 ? .resize : .other }
        if pollers[0].revents == 0, wake >= 0, pollers[1].revents != 0 { return .wake }
        guard let byte = readByte() else { return terminalResized != 0 ? .resize : .other }
        switch byte {
        case 13, 10: return .enter
        case 127, 8: return .backspace
        case 3: return .character("q")
        case 27:
            guard let next = readByte(timeout: 50) else { return .escape }
            guard next == UInt8(ascii: "[") || next == UInt8(ascii: "O") else { return .escape }
            var sequence: [UInt8] = []
            while let part = readByte(timeout: 50) {
                sequence.append(part)
                if part >= 0x40 && part <= 0x7E { break }
            }
            switch String(decoding: sequence, as: UTF8.self) {
            case "A": return .up
            case "B": return .down
            case "C": return .right
            case "D": return .left
            case "H", "1~", "7~": return .home
            case "F", "4~", "8~": return .end
            case "5~": return .pageUp
            case "6~": return .pageDown
            default: return .other
            }
        default:
            return byte < 0x80 ? .character(Character(UnicodeScalar(byte))) : .other
        }
    }

    /// One byte, waiting for it (or `timeout` ms); nil when a signal (a resize) came first or time ran out.
    private func readByte(timeout: Int32 = -1) -> UInt8? {
        var poller = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, timeout) > 0 else { return nil }
        var byte: UInt8 = 0
        return Glibc.read(0, &byte, 1) == 1 ? byte : nil
    }
}

nonisolated(unsafe) private var terminalSaved = termios()
nonisolated(unsafe) private var terminalHasSaved = false
nonisolated(unsafe) var terminalResized: sig_atomic_t = 0

/// Async-signal-safe: a `write` and a `tcsetattr`.
private func restoreTerminal() {
    guard terminalHasSaved else { return }
    let reset = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"
    _ = reset.utf8.withContiguousStorageIfAvailable { Glibc.write(1, $0.baseAddress, $0.count) }
    tcsetattr(0, TCSAFLUSH, &terminalSaved)
}
