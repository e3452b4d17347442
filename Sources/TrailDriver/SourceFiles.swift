import Foundation
import TrailRewriter

#if canImport(Glibc)
import Glibc
#endif

/// Finds `.swift` files under the given paths, in a stable order, honouring `--exclude` globs.
public enum SourceFiles {
    /// Each file's module is `module` when given, else the one its package target or its folder names: the one
    /// place a file's module is decided.
    /// `scratch`: where `swift package describe` keeps its state (a package's own `.build` when nil).
    public static func collect(_ paths: [String], excludes: [String], module: String?, scratch: String? = nil)
        throws(SourceError) -> [SourceFile]
    {
        var files: [SourceFile] = []
        func add(_ path: String, _ relativePath: String, found: @autoclosure () -> String) {
            files.append(SourceFile(path: path, relativePath: relativePath, module: module ?? found()))
        }
        for root in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory) else {
                throw SourceError(path: root, message: "no such file or directory")
            }
            if !isDirectory.boolValue {
                add(root, (root as NSString).lastPathComponent, found: inferModule(root, root: nil))
                continue
            }
            let base = root.hasSuffix("/") ? String(root.dropLast()) : root
            if let targets = PackageTargets.describe(base, scratch: scratch) {
                // A package: exactly the sources of its Swift targets, named by their modules.
                for target in targets {
                    for source in target.sources.sorted() {
                        let relative = target.path + "/" + source
                        let name = (source as NSString).lastPathComponent
                        if isExcluded(relative, name: name, excludes) { continue }
                        add(base + "/" + relative, relative, found: target.module)
                    }
                }
                continue
            }
            var found: [String] = []
            walk(base, relative: "", excludes: excludes, into: &found)
            for relative in found.sorted() {
                let path = base + "/" + relative
                add(path, relative, found: inferModule(path, root: root))
            }
        }
        return files
    }

    /// The Trail runtime is never instrumented: a package's Trail target is left out, and a file of the module
    /// `Trail` is skipped.
    public static func isRuntime(_ module: String) -> Bool { module == "Trail" }

    /// Walks a folder. Hidden folders, nested packages, and a package's manifests and `Plugins` folder
    /// (plugins cannot import Trail) are left out.
    private static func walk(_ directory: String, relative: String, excludes: [String], into found: inout [String]) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        let isPackage = names.contains("Package.swift")
        if isPackage, !relative.isEmpty { return }
        for name in names where !name.hasPrefix(".") {
            if isPackage, name == "Plugins" || name.hasPrefix("Package.swift") || name.hasPrefix("Package@swift") {
                continue
            }
            let path = directory + "/" + name
            let rel = relative.isEmpty ? name : relative + "/" + name
            if isExcluded(rel, name: name, excludes) { continue }
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: walk(path, relative: rel, excludes: excludes, into: &found)
            case S_IFREG where name.hasSuffix(".swift"): found.append(rel)
            default: continue  // Symlinks are not followed, so a tree is never visited twice.
            }
        }
    }

    /// A glob matches the path below the root, or, without a `/`, any single file or folder name.
    static func isExcluded(_ relative: String, name: String, _ excludes: [String]) -> Bool {
        for pattern in excludes {
            if fnmatch(pattern, relative, 0) == 0 { return true }
            if !pattern.contains("/"), fnmatch(pattern, name, 0) == 0 { return true }
        }
        return false
    }

    /// `Sources/<Module>/…` and `Tests/<Module>/…` name the module; else the folder the file is found in.
    static func inferModule(_ path: String, root: String?) -> String {
        let components = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
        if let index = components.lastIndex(where: { $0 == "Sources" || $0 == "Tests" }), index + 2 < components.count {
            return identifier(components[index + 1])
        }
        let folder = components.count >= 2 ? components[components.count - 2] : "Main"
        return identifier((folder as NSString).deletingPathExtension)
    }

    /// Module names are identifiers: SwiftPM turns `my-lib` into `my_lib`.
    private static func identifier(_ name: String) -> String {
        var result = ""
        for scalar in name.unicodeScalars {
            result.unicodeScalars.append(CharacterSet.alphanumerics.contains(scalar) || scalar == "_" ? scalar : "_")
        }
        if let first = result.unicodeScalars.first, CharacterSet.decimalDigits.contains(first) { result = "_" + result }
        return result.isEmpty ? "Main" : result
    }
}
