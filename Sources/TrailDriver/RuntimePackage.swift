import Foundation
import TrailRewriter

/// The runtime alone, as a package of its own that the traced copy depends on: `.build/trail-shadow/swift-trail`,
/// a manifest with Trail's five targets and links to their folders in swift-trail's checkout. swift-trail's own
/// manifest also builds the rewriter against the toolchain's SwiftSyntax, declares three plugins and the
/// integrations' dependencies; a copy that depended on it would evaluate all of that, and compile the plugins,
/// on every run, and `git status` the checkout.
enum RuntimePackage {
    /// The runtime's targets: the folders linked, in the order the manifest declares them.
    static let targets = ["CTrailHooks", "CTrailShim", "TrailFormat", "Trail", "TrailExit"]

    /// The same targets and settings as swift-trail's Package.swift (TracePackageTests compares them).
    static let manifest = """
        // swift-tools-version:6.1
        // Made by `trail test` and `trail run`: swift-trail's runtime targets, linked from its checkout.
        import PackageDescription

        let package = Package(
            name: "swift-trail",
            products: [.library(name: "Trail", targets: ["Trail", "TrailExit"])],
            targets: [
                .target(name: "CTrailShim", dependencies: ["CTrailHooks"], cSettings: [.unsafeFlags(["-O2", "-fdebug-default-version=4"])]),
                .target(name: "CTrailHooks", cSettings: [.unsafeFlags(["-fdebug-default-version=4"])]),
                .target(name: "Trail", dependencies: ["CTrailHooks", "CTrailShim", "TrailFormat"],
                        swiftSettings: [.unsafeFlags(["-O", "-enforce-exclusivity=unchecked", "-Xfrontend", "-enable-library-evolution",
                                                      "-Xfrontend", "-alias-module-names-in-module-interface"]),
                                        .enableExperimentalFeature("Lifetimes")]),
                .target(name: "TrailExit", dependencies: ["Trail"],
                        swiftSettings: [.unsafeFlags(["-Xfrontend", "-enable-library-evolution",
                                                      "-Xfrontend", "-alias-module-names-in-module-interface"]),
                                        .enableExperimentalFeature("Lifetimes")]),
                .target(name: "TrailFormat"),
            ]
        )

        """

    /// Writes the package into `folder` (its manifest only when it changed, so SwiftPM does not resolve again),
    /// with each target's folder a link into `trail`'s Sources.
    static func make(in folder: String, trail: String) throws(SourceError) {
        try FileIO.makeParents(of: folder + "/Sources/x")
        try FileIO.writeIfChanged(Array(manifest.utf8), to: folder + "/Package.swift")
        for target in targets {
            let link = folder + "/Sources/" + target
            let destination = trail + "/Sources/" + target
            guard access(destination, F_OK) == 0 else {
                throw SourceError(path: trail, message: "no Sources/\(target) here: not a swift-trail checkout")
            }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(link, &buffer, buffer.count - 1)
            if length > 0,
                String(decoding: buffer[0 ..< length].map { UInt8(bitPattern: $0) }, as: UTF8.self) == destination
            {
                continue
            }
            // A new link beside the old, then renamed over it: a concurrent run never sees the folder missing.
            let temporary = link + ".\(getpid()).tmp"
            unlink(temporary)
            guard symlink(destination, temporary) == 0, rename(temporary, link) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(temporary)
                throw SourceError(path: link, message: "cannot link to \(destination): \(reason)")
            }
        }
    }
}
