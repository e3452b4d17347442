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

    /// A Swift file of comments only, one declaration per line, sorted, so equal sets give equal files:
    /// `// never NAME`, `// builder NAME`, `// function-alias NAME`, `// unsafe-type NAME`, `// requirement PROTOCOL NAME ATTRIBUTE` (a builder requirement) and
    /// `// refines PROTOCOL INHERITED` (only those leading to a builder requirement). Swift, because SwiftPM
    /// turns any other file a build command writes into a resource, and a resource bundle would change the
    /// target; a file of comments compiles to nothing. Readers skip kinds they do not know.
    public var text: String {
        let kept = relevant
        let refines = kept.refinements.keys.sorted().flatMap { name in
            kept.refinements[name]!.sorted().map { "// refines \(name) \($0)\n" }
        }
        return Self.header
            + (kept.neverReturning.sorted().map { "// never \($0)\n" }
            + kept.resultBuilders.sorted().map { "// builder \($0)\n" }
            + kept.functionTypeAliases.sorted().map { "// function-alias \($0)\n" }
            + kept.unsafeTypes.sorted().map { "// unsafe-type \($0)\n" }
            + kept.requirements.sorted().map { "// requirement \($0.protocolName) \($0.name) \($0.attribute)\n" }
            + refines).joined()
    }

    static let header =
        "// Written by `trail scan`: what the target declares that changes how its files are rewritten.\n"

    /// Reads `text`; a line that is not a comment is an error naming the file and line.
    public init(text: String, path: String) throws(SourceError) {
        self.init()
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where !line.isEmpty {
            guard line.hasPrefix("//") else {
                throw SourceError(
                    path: path, line: number + 1, column: 1, message: "expected a comment such as '// never NAME'")
            }
            let parts = line.dropFirst(2).split(separator: " ")
            let words = parts.map(String.init)
            switch (words.first, words.count) {
            case ("never", 2): neverReturning.insert(words[1])
            case ("builder", 2): resultBuilders.insert(words[1])
            case ("function-alias", 2): functionTypeAliases.insert(words[1])
            case ("unsafe-type", 2): unsafeTypes.insert(words[1])
            case ("requirement", 4):
                requirements.insert(Requirement(protocolName: words[1], name: words[2], attribute: words[3]))
            case ("refines", 3): refinements[words[1], default: []].insert(words[2])
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
