import Foundation
import Testing
import TrailDriver
import TrailTestSupport

/// `trail setup` in process, on manifests shaped as real packages write them: each is set up, set up again to
/// no effect, and undone to the same bytes, with the placeholders made and removed.
@Suite struct SetupRoundTripTests {
    static let dependencies = #"dependencies: [.package(name: "swift-trail", path: "../swift-trail")],"#

    static let oneLine = """
        // swift-tools-version:6.0
        import PackageDescription

        let package = Package(
            name: "P",
            \(dependencies)
            targets: [
                .target(name: "A", dependencies: ["B"]),
                .target(name: "B"),
            ]
        )

        """

    static let multiLine = """
        // swift-tools-version:5.9
        import PackageDescription

        let package = Package(
            name: "P",
            \(dependencies)
            targets: [
                .executableTarget(
                    name: "A",
                    dependencies: [
                        "B",
                        .product(name: "Logging", package: "swift-log")
                    ],
                    path: "Sources/A"
                ),
                .target(
                    name: "B",
                    swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
                ),
            ]
        )

        """

    /// Trailing commas in argument lists too (Swift 6.1).
    static let trailingCommas = """
        // swift-tools-version:6.1
        import PackageDescription

        let package = Package(
            name: "P",
            \(dependencies)
            targets: [
                .target(
                    name: "A",
                    dependencies: ["B",],
                ),
                .target(name: "B",),
            ],
        )

        """

    static let comments = """
        // swift-tools-version:6.0
        // The package's own notes, before and between everything.
        import PackageDescription /* the only import */

        let package = Package(
            name: "P",  // the name
            \(dependencies)
            targets: [
                // The library.
                .target(
                    name: "B",  // no dependencies
                    /* no settings */
                ),
                .target(name: "A", dependencies: ["B"] /* just B */),  // the app
            ]
        )

        """

    /// Targets appended in code under a condition: those written out are set up, the others noted.
    static let conditional = """
        // swift-tools-version:6.0
        import PackageDescription

        let package = Package(
            name: "P",
            \(dependencies)
            targets: [.target(name: "A")]
        )

        #if os(Linux)
        package.targets.append(.target(name: "B"))
        #endif

        """

    static let shapes: [(name: String, manifest: String, setUp: [String])] = [
        ("one-line", oneLine, ["A", "B"]),
        ("multi-line", multiLine, ["A", "B"]),
        ("trailing-commas", trailingCommas, ["A", "B"]),
        ("comments", comments, ["B", "A"]),
        ("conditional", conditional, ["A"]),
    ]

    @Test(arguments: shapes.indices)
    func setupThenUndoGivesBackTheManifestByteForByte(_ index: Int) throws {
        let shape = Self.shapes[index]
        let package = try ScratchPackage("setup-\(shape.name)", manifest: shape.manifest)
        let original = try package.bytes()

        let plan = try package.setUp()
        #expect(plan.changed == shape.setUp, "\(shape.name)")
        let edited = package.text()
        #expect(edited.contains(#"let traced = Context.environment["TRAIL"] == "1""#), "\(shape.name)")
        #expect(
            edited.components(separatedBy: #"sources: traced ? ["_Trail.swift"] : nil"#).count - 1
                == shape.setUp.count, "\(edited)")
        #expect(
            edited.components(
                separatedBy: #"plugins: traced ? [.plugin(name: "TrailPlugin", package: "swift-trail")] : []"#
            ).count - 1 == shape.setUp.count, "\(edited)")
        for target in ["A", "B"] {
            #expect(package.hasPlaceholder(target) == shape.setUp.contains(target), "\(shape.name) \(target)")
        }

        let again = try package.setUp()
        #expect(again.isEmpty && again.changed.isEmpty, "\(shape.name): a second setup changes nothing")
        #expect(Set(again.unchanged) == Set(shape.setUp))
        #expect(package.text() == edited)

        let undo = try package.setUp(undo: true)
        #expect(Set(undo.changed) == Set(shape.setUp))
        #expect(try package.bytes() == original, "\(shape.name): \(package.text())")
        #expect(!package.hasPlaceholder("A") && !package.hasPlaceholder("B"))
    }

    /// The edit itself, whole, for the plainest manifest: every other shape differs from it only in layout.
    @Test func setupAddsTheDocumentedPatternAndNothingElse() throws {
        let package = try ScratchPackage("setup-exact", manifest: Self.oneLine)
        try package.setUp()
        let trail = #".product(name: "Trail", package: "swift-trail")"#
        let rest =
            #"sources: traced ? ["_Trail.swift"] : nil, "#
            + #"plugins: traced ? [.plugin(name: "TrailPlugin", package: "swift-trail")] : []"#
        #expect(
            package.text() == """
                // swift-tools-version:6.0
                import PackageDescription

                // Added by `trail setup`: `TRAIL=1 swift build --scratch-path .build/trail` traces this package.
                let traced = Context.environment["TRAIL"] == "1"

                let package = Package(
                    name: "P",
                    \(Self.dependencies)
                    targets: [
                        .target(name: "A", dependencies: ["B"] + (traced ? [\(trail)] : []), \(rest)),
                        .target(name: "B", dependencies: traced ? [\(trail)] : [], \(rest)),
                    ]
                )

                """)
        #expect(
            Transcript.read(package.placeholder("A")).hasSuffix(
                "// trail setup added: dependency, sources, plugins (removed by 'trail setup --undo')\n"))
        #expect(
            Transcript.read(package.placeholder("B")).hasSuffix(
                "// trail setup added: dependencies, sources, plugins (removed by 'trail setup --undo')\n"))
    }

    /// One target, then the rest; undoing one keeps `traced`, which the other still uses; undoing all removes it.
    @Test func targetsSetUpAndUndoneOneAtATime() throws {
        let package = try ScratchPackage("setup-one-by-one", manifest: Self.oneLine)
        let original = try package.bytes()
        #expect(try package.setUp(["B"]).changed == ["B"])
        #expect(try package.setUp().changed == ["A"])
        #expect(try package.setUp(["A"], undo: true).changed == ["A"])
        #expect(package.text().contains("let traced"), "B still uses it")
        #expect(!package.hasPlaceholder("A") && package.hasPlaceholder("B"))
        try package.setUp(undo: true)
        #expect(try package.bytes() == original)
    }

    @Test func theConditionalTargetIsNotedWithItsPlace() throws {
        let package = try ScratchPackage("setup-note", manifest: Self.conditional)
        let plan = try PackageSetup.plan(package: package.folder, targets: [], undo: false)
        #expect(
            plan.notes == [
                "\(package.manifest):11:1: note: targets added by code here are not set up; "
                    + "give them the pattern by hand to trace them"
            ])
    }

    /// A dry run's diff: the manifest's lines and the placeholder made, and nothing written.
    @Test func aPlansDiffShowsTheManifestAndThePlaceholder() throws {
        let package = try ScratchPackage("setup-diff", manifest: Self.oneLine)
        let plan = try PackageSetup.plan(package: package.folder, targets: ["B"], undo: false)
        let diff = plan.diff()
        #expect(diff.hasPrefix("--- a/\(package.manifest)\n+++ b/\(package.manifest)\n@@ -1,11 +1,14 @@\n"), "\(diff)")
        #expect(diff.contains("+let traced = Context.environment[\"TRAIL\"] == \"1\"\n"))
        #expect(diff.contains("-        .target(name: \"B\"),\n+        .target(name: \"B\", dependencies: traced"))
        #expect(diff.contains("--- /dev/null\n+++ b/\(package.placeholder("B"))\n@@ -0,0 +1,3 @@\n+// With TRAIL=1"))
        #expect(!package.hasPlaceholder("B") && package.text() == Self.oneLine, "a plan writes nothing")
    }
}
