import TrailFormat

#if canImport(Glibc)
import Glibc
#endif

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
            // The marker's offset is where the handler began the block, even when raw output to fd 2 left the
            // line before it unfinished (so the block does not start a line): read it from there, as bootstrap does.
            if chosen == nil, offset < text.utf8.count,
                var block = CrashLog.parse(String(decoding: text.utf8.dropFirst(offset), as: UTF8.self)).blocks.first,
                block.line == 1
            {
                block.line = line
                chosen = block
            }
        }
        chosen = chosen ?? parsed.blocks.last { $0.kind == .crash } ?? parsed.blocks.last
        guard let block = chosen else {
            // The log rotated after the block was written (or the marker is stale): the block is in an earlier file.
            if let previous = Self.precedingLog(log) {
                self = try CrashReport(log: previous, offset: nil, symbolizer: symbolizer)
                return
            }
            throw SymbolizerError(description: "\(log): no crash block")
        }
        crash = symbolizer.symbolize(block)
        logFile = log
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var before = Array(lines.prefix(max(0, block.line - 1)))
        var message = Self.runtimeMessage(in: before)
        // The logger may have rotated between the runtime's message (and the lines before it) and the block:
        // both then continue in the file written just before.
        if message == nil || before.count < Self.tailLines, let previous = Self.precedingLog(log),
            let earlier = try? Self.readText(previous)
        {
            var earlierLines = earlier.split(separator: "\n", omittingEmptySubsequences: false)
            if earlierLines.last?.isEmpty == true { earlierLines.removeLast() }
            // Lines of an earlier crash are not this one's.
            if let end = earlierLines.lastIndex(where: { $0 == CrashBlockSyntax.endLine(.crash) }) {
                earlierLines.removeSubrange(...end)
            }
            message = message ?? Self.runtimeMessage(in: earlierLines)
            before = earlierLines + before
        }
        logTail = before.suffix(Self.tailLines).map(String.init)
        // Since the handler records the runtime's message in the block, the block is the surest source.
        runtimeMessage = block.reason.flatMap { Self.runtimeMessage(in: [Substring($0)]) } ?? message
        executableBuildID = block.images.first { $0.path == block.executable }?.buildID
        system = Self.osRelease() ?? "Linux"
        var name = utsname()
        uname(&name)
        kernel = [Self.text(&name.sysname), Self.text(&name.release), Self.text(&name.machine)].joined(separator: " ")
    }

    /// The last "Fatal error: ..." the Swift runtime wrote among `lines`.
    static func runtimeMessage(in lines: [Substring]) -> String? {
        lines.last { $0.contains("Fatal error: ") || $0.hasPrefix("Fatal error") }
            .map { String($0[$0.range(of: "Fatal error")!.lowerBound...]) }
    }
}
