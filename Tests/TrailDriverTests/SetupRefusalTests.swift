import Foundation
import Testing
import TrailDriver
import TrailTestSupport

/// Manifests setup cannot edit safely: each is refused with where and why (and the lines to add by hand), and
/// nothing is written.
@Suite struct SetupRefusalTests {
    static func manifest(
        tools: String = "6.0", dependencies: String = SetupRoundTripTests.dependencies, targets: String
    )
        -> String
    {
        """
        // swift-tools-version:\(tools)
        import PackageDescription

        let package = Package(
            name: "P",
            \(dependencies)
            targets: \(targets)
        )

        """
    }

    static let refused: [(name: String, manifest: String, targets: [String], reason: String)] = [
        (
            "existing-plugins",
            manifest(
                targets: #"[.target(name: "A", plugins: [.plugin(name: "Lint", package: "lint")]), .target(name: "B")]"#
            ),
            [], "cannot edit safely: target 'A' already has `plugins:`, which setup would replace"
        ),
        (
            "existing-sources", manifest(targets: #"[.target(name: "A", sources: ["A.swift"])]"#), [],
            "cannot edit safely: target 'A' already has `sources:`, which setup would replace"
        ),
        (
            "old-tools", manifest(tools: "5.5", targets: #"[.target(name: "A")]"#), [],
            "cannot edit safely: Context.environment needs swift-tools-version 5.6 or later"
        ),
        (
            "no-trail", manifest(dependencies: "", targets: #"[.target(name: "A")]"#), [],
            "cannot edit safely: no swift-trail package among the manifest's dependencies"
        ),
        (
            "targets-by-code", manifest(targets: #"["A", "B"].map { .target(name: $0) }"#), [],
            "cannot edit safely: `targets:` is not an array literal: the targets are built by code"
        ),
        (
            "replaced-targets", manifest(targets: #"[.target(name: "A")]"#) + "package.targets = []\n", [],
            "cannot edit safely: targets are replaced or changed by code"
        ),
        ("unknown-target", manifest(targets: #"[.target(name: "A")]"#), ["Z"], "no target 'Z' in the manifest"),
    ]

    @Test(arguments: refused.indices)
    func aManifestSetupCannotEditSafelyIsRefusedAndLeftAlone(_ index: Int) throws {
        let shape = Self.refused[index]
        let package = try ScratchPackage("refused-\(shape.name)", manifest: shape.manifest)
        let refusal = try #require(package.refusal(shape.targets), "\(shape.name) was not refused")
        #expect(refusal.hasPrefix(package.manifest + ":"), "\(refusal)")
        #expect(refusal.contains(": error: " + shape.reason), "\(refusal)")
        #expect(package.text() == shape.manifest)
        #expect(!package.hasPlaceholder("A"))
    }

    /// A refusal points at the node it could not edit and gives the lines to add by hand.
    @Test func aRefusalSaysWhereAndWhatToAddByHand() throws {
        let package = try ScratchPackage("refused-where", manifest: Self.refused[0].manifest)
        let refusal = try #require(package.refusal())
        #expect(refusal.hasPrefix(package.manifest + ":7:34: error: "), "\(refusal)")
        #expect(refusal.contains("Add by hand, as Docs/tracing.md (\"Tracing a package\") shows"))
        #expect(refusal.contains(#"plugins: traced ? [.plugin(name: "TrailPlugin", package: "swift-trail")] : []"#))
    }

    /// A target setup did not change has nothing of setup's to undo: named, it is refused.
    @Test func undoOfATargetSetupNeverChangedIsRefused() throws {
        let package = try ScratchPackage("refused-undo", manifest: SetupRoundTripTests.oneLine)
        let refusal = try #require(package.refusal(["A"], undo: true))
        #expect(refusal.contains("target 'A' was not set up by 'trail setup'"), "\(refusal)")
        let everything = try PackageSetup.plan(package: package.folder, targets: [], undo: true)
        #expect(everything.isEmpty && everything.changed.isEmpty)
    }
}
