import Foundation
import SwiftParser
import SwiftSyntax
import TrailRewriter

/// The copy's manifests: `Package.swift` and every `Package@swift-*.swift` beside it (a toolchain may pick one of
/// those instead), each given the swift-trail dependency and the Trail product.
extension ShadowPackage {
    /// `Package@swift-6.0.swift` and the like, in `folder`, sorted.
    static func versionedManifests(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter(isVersionedManifest).sorted()
    }

    static func isVersionedManifest(_ name: String) -> Bool {
        name.hasPrefix("Package@swift-") && name.hasSuffix(".swift")
    }

    /// Rewrites the copy's manifests only when the original's changed (or the copy lacks one), so SwiftPM does
    /// not resolve again on every run. When it did, the state for `commit` to record.
    func prepareManifest(trail: String) throws(SourceError) -> [UInt8]? {
        let source = try FileIO.read(original + "/Package.swift")
        // A package that names swift-trail itself (for its plugins, say) gets the whole checkout; others get the
        // runtime alone, which SwiftPM plans faster.
        let dependency: String
        if try Self.namesTrail(source, path: original + "/Package.swift") {
            dependency = trail
        } else {
            dependency = root + "/swift-trail"
            try RuntimePackage.make(in: dependency, trail: trail)
        }
        let names = ["Package.swift"] + Self.versionedManifests(in: original)
        var state = Array(("\(dependency)\n".utf8)) + source
        for name in names.dropFirst() { state += Array("\n\(name)\n".utf8) + (try FileIO.read(original + "/" + name)) }
        if let previous = try? FileIO.read(root + "/" + Self.manifestState), previous == state,
            names.allSatisfy({ FileManager.default.fileExists(atPath: copy + "/" + $0) })
        {
            return nil
        }
        for name in names {
            // Messages name the user's manifest: the copy's may not be written yet, and its lines are the same.
            let path = original + "/" + name
            let bytes = name == "Package.swift" ? source : try FileIO.read(path)
            let withDependency = try Self.withTrailDependency(
                bytes, path: path, packageFolder: original, trail: dependency)
            try FileIO.writeIfChanged(try Self.withTrailProduct(withDependency, path: path), to: copy + "/" + name)
        }
        return state
    }

    /// What a manifest whose targets are made by code gets instead of edits to each target's literal: the Trail
    /// product appended to each Swift target's dependencies when the manifest runs.
    static let productByCode = """

        // Added by trail test: the Trail runtime on every target that may hold Swift code.
        for target in package.targets where [.regular, .executable, .test].contains(target.type) {
            target.dependencies.append(.product(name: "Trail", package: "swift-trail"))
        }

        """

    /// The Trail product added to the dependencies of every target with Swift sources (tests included).
    static func withTrailProduct(_ bytes: [UInt8], path: String) throws(SourceError) -> [UInt8] {
        let manifest: Manifest
        do { manifest = try Manifest(bytes, path: path, undo: true) } catch {
            // Targets built by code (swift-collections, say), which no edit of the text can reach.
            return bytes + Array(productByCode.utf8)
        }
        let product = ".product(name: \"Trail\", package: \"swift-trail\")"
        var edits: [Edit] = []
        for target in manifest.targets
        where ["target", "executableTarget", "testTarget"].contains(target.kind)
            && target.name != "Trail" && Manifest.hasSwift(target.folder)
        {
            if let dependencies = target.argument("dependencies") {
                if let array = dependencies.expression.as(ArrayExprSyntax.self),
                    array.elements.contains(where: Manifest.isTrailProduct)
                {
                    continue
                }
                // Any array expression: `(deps) + [Trail]` keeps what it was, however it is written.
                edits.append(
                    Edit(offset: dependencies.expression.positionAfterSkippingLeadingTrivia.utf8Offset, text: "("))
                edits.append(
                    Edit(
                        offset: dependencies.expression.endPositionBeforeTrailingTrivia.utf8Offset,
                        text: ") + [\(product)]"))
            } else if let name = target.argument("name") {
                edits.append(
                    Edit(
                        offset: name.expression.endPositionBeforeTrailingTrivia.utf8Offset,
                        text: ", dependencies: [\(product)]"))
            }
        }
        return Edit.apply(edits, to: bytes)
    }

    /// The manifest with relative `path:` dependencies made absolute (the copy lives elsewhere) and, unless it
    /// has one, `.package(name: "swift-trail", path: trail)` among its dependencies.
    static func withTrailDependency(_ bytes: [UInt8], path: String, packageFolder: String, trail: String)
        throws(SourceError) -> [UInt8]
    {
        let tree = Parser.parse(source: String(decoding: bytes, as: UTF8.self))
        guard !tree.hasError else { throw SourceError(path: path, message: "Package.swift does not parse") }
        let finder = PackageCallFinder(viewMode: .sourceAccurate)
        finder.walk(tree)
        var edits: [Edit] = []
        var hasTrail = false
        for call in finder.dependencies {
            if isTrail(call) {
                hasTrail = true
                // The copy builds against the swift-trail this trail belongs to, with the traits the package asks
                // for (TrailLogging, TrailTracing): without them their products do not build.
                if let first = call.arguments.first, let last = call.arguments.last {
                    let start = first.positionAfterSkippingLeadingTrivia.utf8Offset
                    let end = last.endPositionBeforeTrailingTrivia.utf8Offset
                    let traits = call.argument("traits").map { ", " + $0.trimmedDescription } ?? ""
                    let kept = traits.hasSuffix(",") ? String(traits.dropLast()) : traits
                    edits.append(
                        Edit(
                            offset: start, length: end - start,
                            text: "name: \"swift-trail\", path: \(String(reflecting: trail))" + kept))
                }
                continue
            }
            if let argument = call.argument("path"), let relative = Manifest.literal(argument.expression),
                !relative.hasPrefix("/")
            {
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
                    // Built by code: appended when the manifest runs.
                    edits.append(
                        Edit(offset: bytes.count, text: "\npackage.dependencies.append(\(element))\n"))
                    return Edit.apply(edits, to: bytes)
                }
                let offset = array.leftSquare.endPositionBeforeTrailingTrivia.utf8Offset
                edits.append(Edit(offset: offset, text: element + (array.elements.isEmpty ? "" : ", ")))
            } else if let targets = package.argument("targets") {
                edits.append(
                    Edit(
                        offset: targets.positionAfterSkippingLeadingTrivia.utf8Offset,
                        text: "dependencies: [\(element)], "))
            } else {
                throw SourceError(path: path, message: "Package(...) has no `targets:`")
            }
        }
        return Edit.apply(edits, to: bytes)
    }
}
