#if canImport(Glibc)
import Glibc
#endif
import TrailFormat

/// The report of a program's last crash, for a user to attach to a bug: the symbolized stack of the crashing
/// thread, the breadcrumbs, the log lines before the crash, the app and its build ID, the system and the time.
/// Home folders and the user name are masked unless asked otherwise.
public struct CrashReport: Sendable {
    public var crash: SymbolizedCrash
    public var logFile: String
    /// Up to `tailLines` lines of the log before the crash block.
    public var logTail: [String]
    public var system: String
    public var kernel: String
    /// The Swift runtime's own message, when the log has one ("Fatal error: ...").
    public var runtimeMessage: String?
    public var executableBuildID: String?

    public static let tailLines = 200

    public init(log: String, offset: Int?, symbolizer: CrashSymbolizer) throws(SymbolizerError) {
        let text = try Self.readText(log)
        let parsed = CrashLog.parse(text)
        // The block at the marker's offset, else the last crash block in the file.
        var chosen: CrashBlock?
        if let offset {
            let line = text.utf8.prefix(offset).reduce(1) { $0 + ($1 == 10 ? 1 : 0) }
            chosen = parsed.blocks.first { $0.line == line }
        }
        chosen = chosen ?? parsed.blocks.last { $0.kind == .crash } ?? parsed.blocks.last
        guard let block = chosen else { throw SymbolizerError(description: "\(log): no crash block") }
        crash = symbolizer.symbolize(block)
        logFile = log
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let before = lines.prefix(max(0, block.line - 1))
        logTail = before.suffix(Self.tailLines).map(String.init)
        runtimeMessage = logTail.last { $0.contains("Fatal error: ") || $0.hasPrefix("Fatal error") }
            .map { String($0[$0.range(of: "Fatal error")!.lowerBound...]) }
        executableBuildID = block.images.first { $0.path == block.executable }?.buildID
        system = Self.osRelease() ?? "Linux"
        var name = utsname()
        uname(&name)
        kernel = [Self.text(&name.sysname), Self.text(&name.release), Self.text(&name.machine)].joined(separator: " ")
    }
}
