import Foundation
import SwiftParser
import TrailRewriter

/// What the package's dependencies declare that its own code may use: aliases of function types (a parameter of
/// one is a non-escaping closure, which a build with values must not pass to a recorder) and result builders. Read
/// from the sources of its local (`path:`) dependencies and of the checkouts SwiftPM resolved, the package's and
/// the copy's; a dependency not resolved yet is simply not read.
extension ShadowPackage {
    func dependencyDeclarations() -> Declarations {
        var folders = Set<String>()
        if let manifest = try? FileIO.read(original + "/Package.swift") {
            folders.formUnion(Self.localDependencies(manifest, packageFolder: original))
        }
        for checkouts in [original + "/.build/checkouts", scratch + "/checkouts"] {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: checkouts)) ?? [] {
                folders.insert(checkouts + "/" + name)
            }
        }
        // Each checkout once, whichever scratch path holds it; only what its targets compile.
        var seen = Set<String>()
        var sources: [String] = []
        for folder in folders.sorted() where seen.insert((folder as NSString).lastPathComponent).inserted {
            let root = folder + "/Sources"
            guard access(root, F_OK) == 0, let files = try? SourceFiles.collect([root], excludes: [], module: nil)
            else { continue }
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
