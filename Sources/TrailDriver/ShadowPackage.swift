import Foundation
import SwiftParser
import SwiftSyntax
import TrailRewriter

/// `trail test` and `trail run` trace a package with nothing to edit: they keep a copy of it under its own
/// `.build/trail-shadow/package`, give the copy's manifest the swift-trail dependency and the TRAIL=1 pattern
/// (`trail setup`), and build the copy with the plugin. A rerun copies only files whose size or time changed,
/// keeping their times, so SwiftPM rebuilds only what changed.
public struct ShadowPackage {
    /// The user's package, the copy, and the copy's scratch path.
    public let original: String
    public let copy: String
    public let scratch: String
    public let root: String

    /// Folders never copied: build products, SwiftPM's state and version control.
    static let skipped: Set<String> = [".build", ".swiftpm", ".git", ".hg", ".svn"]
    static let stateFile = ".trail-shadow-manifest"

    public init(package: String) throws(SourceError) {
        let absolute = package.hasPrefix("/") ? package : FileManager.default.currentDirectoryPath + "/" + package
        original = (absolute as NSString).standardizingPath
        guard FileManager.default.fileExists(atPath: original + "/Package.swift") else {
            throw SourceError(path: original, message: "no Package.swift here; give the package folder with --package DIR")
        }
        root = original + "/.build/trail-shadow"
        copy = root + "/package"
        scratch = root + "/build"
    }

    /// Brings the copy up to date, then its manifest: the swift-trail dependency at `trail` (a folder), path
    /// dependencies made absolute, and `trail setup` for every Swift target (tests included, so that a failing
    /// test's calls have a root). Returns what it copied, for the summary.
    @discardableResult
    public func sync(trail: String) throws(SourceError) -> Int {
        try FileIO.makeParents(of: copy + "/x")
        var copied = 0
        var kept: Set<String> = [Self.stateFile, "Package.swift"]
        try mirror(relative: "", kept: &kept, copied: &copied)
        try removeStale(relative: "", kept: kept)
        try prepareManifest(trail: trail)
        return copied
    }

    // MARK: files

    private func mirror(relative: String, kept: inout Set<String>, copied: inout Int) throws(SourceError) {
        let source = original + relative, destination = copy + relative
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: source) } catch {
            throw SourceError(path: source, message: "cannot read folder")
        }
        for name in names.sorted() where !Self.skipped.contains(name) {
            let path = relative + "/" + name
            if relative.isEmpty, name == "Package.swift" || name == Self.stateFile { continue }
            var info = stat()
            guard lstat(source + "/" + name, &info) == 0 else { continue }  // gone since the listing
            kept.insert(String(path.dropFirst()))
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                if mkdir(destination + "/" + name, 0o755) != 0, errno != EEXIST {
                    throw SourceError(path: destination + "/" + name, message: "cannot create folder: \(String(cString: strerror(errno)))")
                }
                try mirror(relative: path, kept: &kept, copied: &copied)
            case S_IFREG:
                if try copyIfChanged(source + "/" + name, to: destination + "/" + name, info) { copied += 1 }
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

    /// Copies when the size or modification time differ, and gives the copy the original's time.
    private func copyIfChanged(_ source: String, to destination: String, _ info: stat) throws(SourceError) -> Bool {
        var existing = stat()
        if stat(destination, &existing) == 0, existing.st_size == info.st_size,
           existing.st_mtim.tv_sec == info.st_mtim.tv_sec, existing.st_mtim.tv_nsec == info.st_mtim.tv_nsec {
            return false
        }
        try FileIO.writeAtomically(try FileIO.read(source), to: destination, mode: info.st_mode & 0o777)
        var times = [info.st_atim, info.st_mtim]
        utimensat(AT_FDCWD, destination, &times, 0)
        return true
    }

    /// Removes what the original no longer has, except the placeholders `trail setup` wrote.
    private func removeStale(relative: String, kept: Set<String>) throws(SourceError) {
        let folder = copy + relative
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            let path = String((relative + "/" + name).dropFirst())
            if kept.contains(path) {
                var info = stat()
                if lstat(folder + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
                    try removeStale(relative: relative + "/" + name, kept: kept)
                }
                continue
            }
            if name == PackageSetup.placeholder { continue }
            try? FileManager.default.removeItem(atPath: folder + "/" + name)
        }
    }

    // MARK: manifest

    /// Rewrites the copy's manifest only when the original's changed (or the copy has none), so SwiftPM does not
    /// resolve again on every run.
    private func prepareManifest(trail: String) throws(SourceError) {
        let source = try FileIO.read(original + "/Package.swift")
        let state = Array(("\(trail)\n".utf8)) + source
        if let previous = try? FileIO.read(copy + "/" + Self.stateFile), previous == state,
           FileManager.default.fileExists(atPath: copy + "/Package.swift") {
            return
        }
        // Placeholders of an earlier setup would make setup refuse; it writes them again.
        if let walker = FileManager.default.enumerator(atPath: copy) {
            for case let path as String in walker where (path as NSString).lastPathComponent == PackageSetup.placeholder {
                if !FileManager.default.fileExists(atPath: original + "/" + path) { unlink(copy + "/" + path) }
            }
        }
        let edited = try Self.withTrailDependency(source, path: original + "/Package.swift", packageFolder: original, trail: trail)
        try FileIO.writeAtomically(edited, to: copy + "/Package.swift")
        let plan = try PackageSetup.plan(package: copy, targets: [], undo: false, includeTests: true)
        try plan.apply()
        try FileIO.writeAtomically(state, to: copy + "/" + Self.stateFile)
    }

    /// The manifest with relative `path:` dependencies made absolute (the copy lives elsewhere) and, unless it
    /// has one, `.package(name: "swift-trail", path: trail)` among its dependencies.
    static func withTrailDependency(_ bytes: [UInt8], path: String, packageFolder: String, trail: String) throws(SourceError) -> [UInt8] {
        let tree = Parser.parse(source: String(decoding: bytes, as: UTF8.self))
        guard !tree.hasError else { throw SourceError(path: path, message: "Package.swift does not parse") }
        let finder = PackageCallFinder(viewMode: .sourceAccurate)
        finder.walk(tree)
        var edits: [Edit] = []
        var hasTrail = false
        for call in finder.dependencies {
            let name = call.argument("name").flatMap { Manifest.literal($0.expression) }
            let location = (call.argument("url") ?? call.argument("path")).flatMap { Manifest.literal($0.expression) }
            var last = location.map { (($0.hasSuffix("/") ? String($0.dropLast()) : $0) as NSString).lastPathComponent } ?? ""
            if last.hasSuffix(".git") { last = String(last.dropLast(4)) }
            if name == "swift-trail" || last.lowercased() == "swift-trail" {
                hasTrail = true
                // The copy builds against the swift-trail this trail belongs to.
                if let first = call.arguments.first, let last = call.arguments.last {
                    let start = first.positionAfterSkippingLeadingTrivia.utf8Offset
                    let end = last.endPositionBeforeTrailingTrivia.utf8Offset
                    edits.append(Edit(offset: start, length: end - start, text: "name: \"swift-trail\", path: \(String(reflecting: trail))"))
                }
                continue
            }
            if let argument = call.argument("path"), let relative = Manifest.literal(argument.expression), !relative.hasPrefix("/") {
                let absolute = ((packageFolder + "/" + relative) as NSString).standardizingPath
                let start = argument.expression.positionAfterSkippingLeadingTrivia.utf8Offset
                let end = argument.expression.endPositionBeforeTrailingTrivia.utf8Offset
                edits.append(Edit(offset: start, length: end - start, text: String(reflecting: absolute)))
            }
        }
        if !hasTrail {
            let element = ".package(name: \"swift-trail\", path: \(String(reflecting: trail)))"
            guard let package = finder.package else {
                throw SourceError(path: path, message: "no `let package = Package(...)` to add swift-trail to")
            }
            if let dependencies = package.argument("dependencies") {
                guard let array = dependencies.expression.as(ArrayExprSyntax.self) else {
                    throw SourceError(path: path, message: "`dependencies:` is not an array literal; add swift-trail to it by hand")
                }
                let offset = array.leftSquare.endPositionBeforeTrailingTrivia.utf8Offset
                edits.append(Edit(offset: offset, text: element + (array.elements.isEmpty ? "" : ", ")))
            } else if let targets = package.argument("targets") {
                edits.append(Edit(offset: targets.positionAfterSkippingLeadingTrivia.utf8Offset, text: "dependencies: [\(element)], "))
            } else {
                throw SourceError(path: path, message: "Package(...) has no `targets:`")
            }
        }
        return Edit.apply(edits, to: bytes)
    }
}

/// The `Package(...)` call and every `.package(...)` dependency in a manifest.
private final class PackageCallFinder: SyntaxVisitor {
    var package: FunctionCallExprSyntax?
    var dependencies: [FunctionCallExprSyntax] = []

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        if node.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text == "Package", package == nil { package = node }
        if let member = node.calledExpression.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "package",
           member.base == nil || member.base?.trimmedDescription == "Package.Dependency" {
            dependencies.append(node)
        }
        return .visitChildren
    }
}
