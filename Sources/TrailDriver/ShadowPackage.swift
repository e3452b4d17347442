import Foundation
import SwiftParser
import SwiftSyntax
import TrailRewriter

/// `trail test` and `trail run` trace a package with nothing to edit: they keep a copy of it under its own
/// `.build/trail-shadow/package`, give the copy's manifest the swift-trail dependency and the Trail product on
/// every Swift target, and instrument the copy's sources in place. A rerun copies and instruments only the files
/// whose size or time changed since they were last copied, so SwiftPM rebuilds only what changed; the plugin
/// route would also build the rewriting tool and run a command per file, which costs a package's first build
/// about three times its plain build.
public struct ShadowPackage {
    /// The user's package, the copy, and the copy's scratch path.
    public let original: String
    public let copy: String
    public let scratch: String
    public let root: String

    /// Folders never copied: build products, version control, and traces (gigabytes, often). Of `.swiftpm`, only
    /// `configuration` is copied: mirrors and registries that resolution needs.
    static let skipped: Set<String> = [".build", ".git", ".hg", ".svn", "trail-traces"]
    /// The manifest the copy's was made from, with the swift-trail folder it names.
    static let manifestState = "manifest"
    /// The original files' sizes and times when last copied: the copies are instrumented, so they differ.
    static let filesState = "files"
    /// The copy's Swift sources and their modules, as `swift package describe` gave them.
    static let sourcesState = "sources"
    /// What the copy's modules declare (Never functions, result builders), kept between runs.
    static let declarationsFile = "declarations.swift"
    /// The dependency folders whose declarations the copy was instrumented with (`dependencyFolders`).
    static let dependenciesFile = "dependencies"

    public init(package: String) throws(SourceError) {
        let absolute = package.hasPrefix("/") ? package : FileManager.default.currentDirectoryPath + "/" + package
        original = (absolute as NSString).standardizingPath
        guard FileManager.default.fileExists(atPath: original + "/Package.swift") else {
            throw SourceError(
                path: original, message: "no Package.swift here; give the package folder with --package DIR")
        }
        root = original + "/.build/trail-shadow"
        copy = root + "/package"
        scratch = root + "/build"
    }

    /// What `sync` did: the files it copied (relative to the package), and whether the manifest changed.
    public struct Changes: Sendable {
        public var copied: [String] = []
        public var manifestChanged = false
        /// The originals' sizes and times, written by `commit` once the copies are instrumented: a run stopped
        /// in between copies them again, rather than leaving an uninstrumented copy that looks up to date.
        var state: [String: String] = [:]
        /// The manifest state to record with them: until then, a rerun instruments every file again.
        var manifest: [UInt8]?
    }

    /// Brings the copy up to date, then its manifest: the swift-trail dependency at `trail` (a folder), path
    /// dependencies made absolute, and the Trail product on every Swift target, tests included.
    public func sync(trail: String) throws(SourceError) -> Changes {
        try FileIO.makeParents(of: copy + "/x")
        var changes = Changes()
        var kept = Set(["Package.swift"] + Self.versionedManifests(in: original))
        let previous = readFilesState()
        var current: [String: String] = [:]
        let progress = Progress(total: 0, label: "trail: copying ") { FileHandle.standardError.write(Data($0.utf8)) }
        try mirror(
            relative: "", kept: &kept, previous: previous, current: &current, copied: &changes.copied,
            progress: progress)
        progress?.finish()
        try removeStale(relative: "", kept: kept)
        changes.state = current
        changes.manifest = try prepareManifest(trail: trail)
        changes.manifestChanged = changes.manifest != nil
        return changes
    }

    /// Records what was copied, after `instrument` succeeded.
    public func commit(_ changes: Changes) throws(SourceError) {
        try writeFilesState(changes.state)
        if let manifest = changes.manifest { try FileIO.writeAtomically(manifest, to: root + "/" + Self.manifestState) }
    }

    /// Holds `.build/trail-shadow/lock` until this process ends, so that a second `trail test` or `trail run` on
    /// the package waits rather than copying and instrumenting the files the first one is building. Calls
    /// `waiting` before it waits.
    public func lock(waiting: () -> Void) throws(SourceError) {
        try FileIO.makeParents(of: root + "/lock")
        let descriptor = open(root + "/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw SourceError(path: root + "/lock", message: "cannot open: \(String(cString: strerror(errno)))")
        }
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return }
        waiting()
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw SourceError(path: root + "/lock", message: "cannot lock: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Instruments the copy in place: every Swift source of the package's targets when the manifest changed or
    /// on the first run, else the files just copied, with what the modules declare kept between runs.
    /// `values`: record arguments and results too (`--values`); a run that switches it instruments every file again.
    public func instrument(_ changes: Changes, values: Bool = false) throws(SourceError) -> BatchReport {
        let all = try sources(changes)
        guard !all.isEmpty else {
            throw SourceError(path: original, message: "no Swift sources in the package's targets")
        }
        let cache = root + "/" + Self.declarationsFile
        var settings = InstrumentSettings()
        settings.values = values
        // Another build of trail, or values switched: what is in the copy was instrumented otherwise.
        let stampPath = root + "/" + Self.instrumenterFile
        let stamp = Self.instrumenterStamp(values: values)
        let switched = (try? FileIO.read(stampPath)).map { String(decoding: $0, as: UTF8.self) } != stamp
        if switched { try FileIO.writeIfChanged(Array(stamp.utf8), to: stampPath) }
        // Dependencies resolved since (the first build clones them): what they declare may change the rewrite.
        let dependencies = dependencyFolders()
        let dependenciesPath = root + "/" + Self.dependenciesFile
        let listed = Array(dependencies.joined(separator: "\n").utf8)
        let files: [SourceFile]
        if changes.manifestChanged || switched || (try? FileIO.read(dependenciesPath)) != listed
            || !FileManager.default.fileExists(atPath: cache)
        {
            files = all
            // From the package's own sources: a copy that an earlier trail left unparsable would stay so.
            if switched { try refreshFromOriginal(all) }
            settings.declared = [
                Declarations(
                    merging: [
                        Declarations.scan(all.map(\.path), jobs: BatchOptions.defaultJobs),
                        Self.declarations(ofDependencies: dependencies),
                    ])
            ]
            try FileIO.writeIfChanged(listed, to: dependenciesPath)
        } else {
            let copied = Set(changes.copied.map { copy + "/" + $0 })
            files = all.filter { copied.contains($0.path) }
            let known = (try? Declarations(listAt: cache)) ?? Declarations()
            settings.declared = [
                Declarations(merging: [known, Declarations.scan(files.map(\.path), jobs: BatchOptions.defaultJobs)])
            ]
        }
        settings.declarationsComplete = true
        try settings.declared[0].write(to: cache)
        guard !files.isEmpty else { return BatchReport() }
        return Batch.run(
            files, .instrument(settings), BatchOptions(destination: .inPlace, progress: true), standardOutput: { _ in },
            standardError: { text in FileHandle.standardError.write(Data(text.utf8)) })
    }

    /// Copies `files` from the package again, where the copy's differ from them only by what an instrumenter made.
    private func refreshFromOriginal(_ files: [SourceFile]) throws(SourceError) {
        for file in files {
            guard let source = try? FileIO.read(original + "/" + file.relativePath) else { continue }
            try FileIO.writeIfChanged(source, to: file.path)
        }
    }

    /// The package's Swift sources and their modules, from `swift package describe` (a second or so) when the
    /// manifest changed or a file appeared that the last list does not hold, else from that list.
    private func sources(_ changes: Changes) throws(SourceError) -> [SourceFile] {
        let list = root + "/" + Self.sourcesState
        if !changes.manifestChanged, let bytes = try? FileIO.read(list) {
            var cached: [SourceFile] = []
            for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
                let fields = line.split(separator: "\t", maxSplits: 1).map(String.init)
                guard fields.count == 2 else { continue }
                cached.append(SourceFile(path: copy + "/" + fields[1], relativePath: fields[1], module: fields[0]))
            }
            let known = Set(cached.map(\.relativePath))
            let appeared = changes.copied.contains { $0.hasSuffix(".swift") && !known.contains($0) }
            let vanished = cached.contains { access($0.path, F_OK) != 0 }
            if !cached.isEmpty, !appeared, !vanished { return cached }
        }
        let found = try SourceFiles.collect([copy], excludes: [], module: nil, scratch: scratch)
        let text = found.map { "\($0.module)\t\($0.relativePath)\n" }.joined()
        try FileIO.writeIfChanged(Array(text.utf8), to: list)
        return found
    }

    /// What instrumented the copy, so that a rerun by another build of trail instruments it all again.
    static let instrumenterFile = "instrumented-by"

    /// This trail executable, by its size and modification time, and whether values are recorded.
    static func instrumenterStamp(values: Bool) -> String {
        var info = stat()
        let executable =
            stat("/proc/self/exe", &info) == 0 ? "\(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)" : "?"
        return "trail \(executable) values \(values ? 1 : 0)\n"
    }

    private func readFilesState() -> [String: String] {
        guard let bytes = try? FileIO.read(root + "/" + Self.filesState) else { return [:] }
        var state: [String: String] = [:]
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            guard let tab = line.firstIndex(of: "\t") else { continue }
            state[String(line[line.index(after: tab)...])] = String(line[..<tab])
        }
        return state
    }

    private func writeFilesState(_ state: [String: String]) throws(SourceError) {
        let text = state.keys.sorted().map { "\(state[$0]!)\t\($0)\n" }.joined()
        try FileIO.writeIfChanged(Array(text.utf8), to: root + "/" + Self.filesState)
    }

    // MARK: files

    private func mirror(
        relative: String, kept: inout Set<String>, previous: [String: String], current: inout [String: String],
        copied: inout [String], progress: Progress?
    ) throws(SourceError) {
        let source = original + relative
        let destination = copy + relative
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: source) } catch {
            throw SourceError(path: source, message: "cannot read folder")
        }
        for name in names.sorted() where !Self.skipped.contains(name) {
            if relative == "/.swiftpm", name != "configuration" { continue }
            let path = relative + "/" + name
            if relative.isEmpty, name == "Package.swift" || Self.isVersionedManifest(name) { continue }
            var info = stat()
            guard lstat(source + "/" + name, &info) == 0 else { continue }  // gone since the listing
            kept.insert(String(path.dropFirst()))
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                if mkdir(destination + "/" + name, 0o755) != 0, errno != EEXIST {
                    throw SourceError(
                        path: destination + "/" + name,
                        message: "cannot create folder: \(String(cString: strerror(errno)))")
                }
                try mirror(
                    relative: path, kept: &kept, previous: previous, current: &current, copied: &copied,
                    progress: progress)
            case S_IFREG:
                let key = String(path.dropFirst())
                progress?.advance(key)
                let stamp = "\(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
                current[key] = stamp
                if previous[key] == stamp, access(destination + "/" + name, F_OK) == 0, key != "Package.resolved" {
                    continue
                }
                // SwiftPM rewrites the copy's pins as it resolves: they are compared by content, not by time.
                if key == "Package.resolved", let pins = try? FileIO.read(source + "/" + name),
                    (try? FileIO.read(destination + "/" + name)) == pins
                {
                    continue
                }
                try FileIO.writeAtomically(
                    try FileIO.read(source + "/" + name), to: destination + "/" + name, mode: info.st_mode & 0o777)
                copied.append(key)
            case S_IFLNK:
                var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
                let length = readlink(source + "/" + name, &buffer, buffer.count - 1)
                guard length > 0 else { continue }
                let target = String(decoding: buffer[0 ..< length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                var existing = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
                let existingLength = readlink(destination + "/" + name, &existing, existing.count - 1)
                if existingLength == length, existing[0 ..< length] == buffer[0 ..< length] { continue }
                unlink(destination + "/" + name)
                symlink(target, destination + "/" + name)
            default:
                continue  // sockets, FIFOs: nothing a build reads
            }
        }
    }

    /// Removes what the original no longer has.
    private func removeStale(relative: String, kept: Set<String>) throws(SourceError) {
        let folder = copy + relative
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        where !Self.skipped.contains(name) {
            let path = String((relative + "/" + name).dropFirst())
            if kept.contains(path) {
                var info = stat()
                if lstat(folder + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
                    try removeStale(relative: relative + "/" + name, kept: kept)
                }
                continue
            }
            try? FileManager.default.removeItem(atPath: folder + "/" + name)
        }
    }

}

extension ShadowPackage {
    /// Whether the manifest depends on swift-trail.
    static func namesTrail(_ bytes: [UInt8], path: String) throws(SourceError) -> Bool {
        let tree = Parser.parse(source: String(decoding: bytes, as: UTF8.self))
        guard !tree.hasError else { throw SourceError(path: path, message: "Package.swift does not parse") }
        let finder = PackageCallFinder(viewMode: .sourceAccurate)
        finder.walk(tree)
        return finder.dependencies.contains(where: isTrail)
    }

    /// A `.package(...)` call that names swift-trail, by name or by the last component of its URL or path.
    static func isTrail(_ call: FunctionCallExprSyntax) -> Bool {
        let name = call.argument("name").flatMap { Manifest.literal($0.expression) }
        let location = (call.argument("url") ?? call.argument("path")).flatMap { Manifest.literal($0.expression) }
        var last =
            location.map { (($0.hasSuffix("/") ? String($0.dropLast()) : $0) as NSString).lastPathComponent } ?? ""
        if last.hasSuffix(".git") { last = String(last.dropLast(4)) }
        return name == "swift-trail" || last.lowercased() == "swift-trail"
    }
}

/// The `Package(...)` call and every `.package(...)` dependency in a manifest.
final class PackageCallFinder: SyntaxVisitor {
    var package: FunctionCallExprSyntax?
    var dependencies: [FunctionCallExprSyntax] = []

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        if node.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text == "Package", package == nil {
            package = node
        }
        if let member = node.calledExpression.as(MemberAccessExprSyntax.self),
            member.declName.baseName.text == "package",
            member.base == nil || member.base?.trimmedDescription == "Package.Dependency"
        {
            dependencies.append(node)
        }
        return .visitChildren
    }
}
