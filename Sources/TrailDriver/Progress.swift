import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `[12/340] Sources/App/File.swift` on one terminal line, redrawn at most ten times a second, after a label
/// (`trail test: instrumenting `); with no total known (0), `[12] ...`.
final class Progress: @unchecked Sendable {
    private let total: Int
    private let label: String
    private let write: @Sendable (String) -> Void
    private var done = 0
    private var lastDraw = 0.0
    private var drawn = false
    private let lock = NSLock()

    init?(total: Int, label: String = "", write: @escaping @Sendable (String) -> Void) {
        guard isatty(2) != 0, total > 1 || total == 0 else { return nil }
        self.total = total
        self.label = label
        self.write = write
        lastDraw = Date().timeIntervalSinceReferenceDate  // Short runs draw nothing.
    }

    func advance(_ name: String) {
        lock.withLock {
            done += 1
            let now = Date().timeIntervalSinceReferenceDate
            guard now - lastDraw >= 0.1 else { return }
            lastDraw = now
            drawn = true
            write("\r\u{1B}[K\(label)[\(done)\(total == 0 ? "" : "/\(total)")] \(name)")
        }
    }

    func finish() {
        lock.withLock {
            if drawn { write("\r\u{1B}[K") }
        }
    }
}
