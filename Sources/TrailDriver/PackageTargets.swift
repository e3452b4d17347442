import Foundation
import TrailRewriter

#if canImport(Glibc)
import Glibc
#endif

/// The Swift targets of a package, from `swift package describe`, which knows each target's sources and module
/// name better than any folder walk (resources, custom paths, excluded files, plugins).
struct PackageTargets {
    var module: String
    var path: String
    var sources: [String]

    static func describe(_ directory: String, scratch: String? = nil) -> [PackageTargets]? {
        guard let targets = PackageDescription.read(directory, scratch: scratch)?["targets"] as? [[String: Any]] else {
            return nil
        }
        let traceable: Set<String> = ["library", "executable", "test", "macro"]
        return targets.compactMap { target in
            guard target["module_type"] as? String == "SwiftTarget",
                let type = target["type"] as? String, traceable.contains(type),
                let module = target["c99name"] as? String, !SourceFiles.isRuntime(module),
                let path = target["path"] as? String,
                let sources = target["sources"] as? [String]
            else { return nil }
            return PackageTargets(module: module, path: path, sources: sources)
        }
    }
}
