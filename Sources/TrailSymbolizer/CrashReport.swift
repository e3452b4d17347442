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

    /// The last crash in a log folder (as named by its crash marker, else the newest log holding a crash
    /// block) or in a log file.
    public static func locate(_ path: String) throws(SymbolizerError) -> (log: String, offset: Int?) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw SymbolizerError(description: "\(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { return (path, nil) }
        let names = listDirectory(path)
        // A marker from the runtime names the log and the block's offset.
        for name in names.filter({ $0.hasSuffix(CrashMarker.fileExtension) }).sorted(by: { modified(path + "/" + $0) > modified(path + "/" + $1) }) {
            guard let text = try? readText(path + "/" + name), let marker = CrashMarker(parsing: text) else { continue }
            if access(marker.log, R_OK) == 0 { return (marker.log, marker.offset) }
        }
        let logs = names.filter { $0.hasSuffix(".log") }.sorted { modified(path + "/" + $0) > modified(path + "/" + $1) }
        for log in logs {
            if let text = try? readText(path + "/" + log), text.contains(CrashBlockSyntax.beginPrefix(.crash)) { return (path + "/" + log, nil) }
        }
        throw SymbolizerError(description: "\(path): no crash marker and no log with a crash block")
    }

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

    // MARK: rendering

    public func markdown(sanitized: Bool) -> String {
        let block = crash.block
        var out = "# Crash report: \(block.app ?? block.executable.map { ($0 as String).split(separator: "/").last.map(String.init) ?? $0 } ?? "app")\n\n"
        out += "**\(CrashFormat.headline(block))**\(runtimeMessage.map { "\n\n> \($0)" } ?? "")\n\n"
        var facts: [(String, String)] = [("Time", block.time ?? "?")]
        if let app = block.app { facts.append(("App", app)) }
        if let exe = block.executable { facts.append(("Executable", exe)) }
        facts.append(("Build ID", executableBuildID ?? "none"))
        facts.append(("System", "\(system), \(kernel)"))
        if let pid = block.pid { facts.append(("Process", pid)) }
        if let thread = block.thread { facts.append(("Thread", "\(thread.tid) \(thread.name)")) }
        facts.append(("Log", logFile))
        out += "| | |\n|---|---|\n" + facts.map { "| \($0.0) | \(CrashFormat.escapeMarkdown($0.1)) |" }.joined(separator: "\n") + "\n\n"
        out += CrashFormat.markdownSections(crash, level: "##")
        out += "\n## Log before the crash (last \(logTail.count) lines)\n\n```\n" + logTail.joined(separator: "\n") + "\n```\n"
        return sanitized ? Self.sanitize(out) : out
    }

    public func json(sanitized: Bool) -> String {
        let q = JSONString.quote
        var fields = [
            "\"crash\":" + CrashFormat.json(crash),
            "\"logFile\":\(q(logFile))",
            "\"logTail\":[\(logTail.map(q).joined(separator: ","))]",
            "\"system\":\(q(system))",
            "\"kernel\":\(q(kernel))",
            "\"buildId\":\(q(executableBuildID ?? ""))",
        ]
        if let runtimeMessage { fields.append("\"runtimeMessage\":\(q(runtimeMessage))") }
        let out = "{" + fields.joined(separator: ",") + "}\n"
        return sanitized ? Self.sanitize(out) : out
    }

    // MARK: helpers

    /// Masks the home folder as `~` and the user's name as `<user>`.
    static func sanitize(_ text: String) -> String {
        var out = text
        let user = getpwuid(getuid()).flatMap { $0.pointee.pw_name.map { String(cString: $0) } } ?? (getenv("USER").map { String(cString: $0) })
        let home = getenv("HOME").map { String(cString: $0) } ?? getpwuid(getuid()).flatMap { $0.pointee.pw_dir.map { String(cString: $0) } }
        if let home, home.count > 1 { out = out.replacingAll(home, with: "~") }
        out = out.replacingAll("/home/", with: "/home/", maskingNextComponentAs: "<user>")
        if let user, user.count >= 3, user != "root" { out = out.replacingAll(user, with: "<user>") }
        return out
    }

    static func osRelease() -> String? {
        guard let text = try? readText("/etc/os-release") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("PRETTY_NAME=") {
            return String(line.dropFirst("PRETTY_NAME=".count)).trimmingQuotes()
        }
        return nil
    }

    static func text<T>(_ field: inout T) -> String {
        withUnsafeBytes(of: &field) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    public static func readText(_ path: String) throws(SymbolizerError) -> String {
        guard let handle = fopen(path, "rb") else {
            throw SymbolizerError(description: "\(path): cannot read (\(String(cString: strerror(errno))))")
        }
        defer { fclose(handle) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = fread(&chunk, 1, chunk.count, handle)
            if count <= 0 { break }
            bytes.append(contentsOf: chunk[0 ..< count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func listDirectory(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            var name = entry.pointee.d_name
            let text = Self.text(&name)
            if text != ".", text != ".." { names.append(text) }
        }
        return names
    }

    static func modified(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec) : 0
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = "", rest = Substring(self)
        while let range = rest.range(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }

    /// `/home/alice/x` -> `/home/<user>/x` for every `/home/` prefix.
    func replacingAll(_ prefix: String, with kept: String, maskingNextComponentAs mask: String) -> String {
        var result = "", rest = Substring(self)
        while let range = rest.range(of: prefix) {
            result += rest[..<range.lowerBound] + kept
            rest = rest[range.upperBound...]
            let component = rest.prefix { $0 != "/" && $0 != " " && $0 != "\n" && $0 != "\"" }
            if !component.isEmpty, component != "~" {
                result += mask
                rest = rest.dropFirst(component.count)
            }
        }
        return result + rest
    }

    func trimmingQuotes() -> String {
        var text = Substring(self)
        if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = text.dropFirst().dropLast() }
        return String(text)
    }

    func range(of target: String) -> Range<String.Index>? { Substring(self).range(of: target) }

}

extension Substring {
    func range(of target: String) -> Range<String.Index>? {
        guard let first = target.first else { return nil }
        var index = startIndex
        while index < endIndex {
            if self[index] == first, self[index...].hasPrefix(target) {
                return index ..< self.index(index, offsetBy: target.count)
            }
            index = self.index(after: index)
        }
        return nil
    }
}
