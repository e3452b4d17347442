import TrailRewriter

/// The declarations of a set of files, and the list `trail scan` writes for the build plugin, whose commands
/// each rewrite one file but must know what the whole target declares.
extension Declarations {
    /// Scans the files on `jobs` threads; unreadable files are left to the rewrite to report.
    public static func scan(_ paths: [String], jobs: Int) -> Declarations {
        let found = ResultSlots<Declarations>(count: paths.count)
        parallelForEach(paths.count, jobs: jobs) { index in
            guard let source = try? FileIO.read(paths[index]) else { return }
            found[index] = Declarations(scanning: source)
        }
        return Declarations(merging: (0 ..< paths.count).compactMap { found[$0] })
    }

    /// A Swift file of comments only, one `// never NAME` or `// builder NAME` per line, sorted, so equal sets
    /// give equal files. Swift, because SwiftPM turns any other file a build command writes into a resource,
    /// and a resource bundle would change the target; a file of comments compiles to nothing.
    public var text: String {
        Self.header + (neverReturning.sorted().map { "// never \($0)\n" }
            + resultBuilders.sorted().map { "// builder \($0)\n" }).joined()
    }

    static let header = "// Written by `trail scan`: what the target declares that changes how its files are rewritten.\n"

    /// Reads `text`; a line that is not a comment is an error naming the file and line.
    public init(text: String, path: String) throws(SourceError) {
        self.init()
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            guard line.hasPrefix("//") else {
                throw SourceError(path: path, line: number + 1, column: 1, message: "expected '// never NAME' or '// builder NAME'")
            }
            let parts = line.dropFirst(2).split(separator: " ")
            guard parts.count == 2 else { continue }
            switch parts[0] {
            case "never": neverReturning.insert(String(parts[1]))
            case "builder": resultBuilders.insert(String(parts[1]))
            default: continue
            }
        }
    }

    /// Reads the list file at `path`.
    public init(listAt path: String) throws(SourceError) {
        try self.init(text: String(decoding: try FileIO.read(path), as: UTF8.self), path: path)
    }

    /// Writes `text` to `path` only when it differs, so the build commands that read it rerun only then.
    public func write(to path: String) throws(SourceError) {
        let bytes = Array(text.utf8)
        if let existing = try? FileIO.read(path), existing == bytes { return }
        try FileIO.makeParents(of: path)
        try FileIO.writeAtomically(bytes, to: path)
    }
}
