import Foundation
import SwiftParser
import TrailRewriter

/// What the package's dependencies declare that its own code may use: aliases of function types (a parameter of
/// one is a non-escaping closure, which a build with values must not pass to a recorder) and result builders. Read
/// from the sources of its local (`path:`) dependencies and of the checkouts SwiftPM resolved, the package's and
/// the copy's; one resolved later (the first build clones it) has the next run instrument every file again.
extension ShadowPackage {
    /// The folders of the package's dependencies that hold sources, sorted: each checkout once, whichever
    /// scratch path holds it.
    func dependencyFolders() -> [String] {
        var folders = Set<String>()
        if let manifest = try? FileIO.read(original + "/Package.swift") {
            folders.formUnion(Self.localDependencies(manifest, packageFolder: original))
        }
        for checkouts in [original + "/.build/checkouts", scratch + "/checkouts"] {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: checkouts)) ?? [] {
                folders.insert(checkouts + "/" + name)
            }
        }
        var seen = Set<String>()
        return folders.sorted().filter { folder in
            access(folder + "/Sources", F_OK) == 0 && seen.insert((folder as NSString).lastPathComponent).inserted
        }
    }

    /// What the `Sources` of `folders` declare that crosses modules.
    static func declarations(ofDependencies folders: [String]) -> Declarations {
        var sources: [String] = []
        for folder in folders {
            guard let files = try? SourceFiles.collect([folder + "/Sources"], excludes: [], module: nil) else {
                continue
            }
            sources += files.map(\.path)
        }
        return Declarations.scan(sources, jobs: BatchOptions.defaultJobs).seenFromAnotherModule
    }

    /// The folders of the manifest's `.package(path:)` dependencies, absolute.
    static func localDependencies(_ bytes: [UInt8], packageFolder: String) -> [String] {
        let finder = PackageCallFinder(viewMode: .sourceAccurate)
        finder.walk(Parser.parse(source: String(decoding: bytes, as: UTF8.self)))
        return finder.dependencies.compactMap { call in
            guard !isTrail(call), let argument = call.argument("path"),
                let path = Manifest.literal(argument.expression)
            else { return nil }
            return path.hasPrefix("/") ? path : ((packageFolder + "/" + path) as NSString).standardizingPath
        }
    }
}
