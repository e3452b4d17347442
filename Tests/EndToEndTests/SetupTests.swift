import Foundation
import Testing
import TrailTestSupport

/// `trail setup`: the TRAIL=1 pattern added to a manifest, built traced and plain, and removed byte for byte.
@Suite struct SetupTests {
    /// A copy of the SetupPlain fixture in a temporary folder, depending on this checkout by path.
    static func plainPackage() throws -> String {
        let directory = Paths.temporaryDirectory("setup")
        try FileManager.default.removeItem(atPath: directory)
        try FileManager.default.copyItem(atPath: Paths.fixture("SetupPlain"), toPath: directory)
        let manifest = directory + "/Package.swift"
        try Transcript.read(manifest)
            .replacingOccurrences(of: #"path: "../../..""#, with: "path: \(String(reflecting: Paths.packageRoot))")
            .write(toFile: manifest, atomically: true, encoding: .utf8)
        return directory
    }

    static func placeholders(_ package: String) -> [String] {
        ["Greeting", "Hello", "CDouble"].map { package + "/Sources/\($0)/_Trail.swift" }
            .filter { FileManager.default.fileExists(atPath: $0) }
    }

    @Test func setupThroughTheCommandPluginTracesAndUndoRestoresTheManifest() throws {
        let package = try Self.plainPackage()
        defer { try? FileManager.default.removeItem(atPath: package) }
        let manifest = package + "/Package.swift"
        let original = try Data(contentsOf: URL(fileURLWithPath: manifest))
        let scratch = ["--package-path", package, "--scratch-path", package + "/.build/trail"]

        // The command plugin builds `trail` in the scratch folder the traced build then reuses.
        try run(
            "swift", ["package"] + scratch + ["--allow-writing-to-package-directory", "trail", "setup"], check: true)
        let edited = Transcript.read(manifest)
        #expect(edited.contains(#"let traced = Context.environment["TRAIL"] == "1""#))
        #expect(
            edited.contains(#"dependencies: ["Greeting", "CDouble"] + (traced ? [.product(name: "Trail", package: "#))
        #expect(
            Self.placeholders(package) == ["Greeting", "Hello"].map { package + "/Sources/\($0)/_Trail.swift" },
            "C targets and test targets are left alone")

        try run("swift", ["build"] + scratch, environment: ["TRAIL": "1"], check: true)
        let traced = try run(package + "/.build/trail/debug/Hello", [], environment: ["TRAIL_TRACE": "1"], check: true)
        #expect(traced.stdout == "hello, setup 42\n")
        #expect(traced.stderr.contains("-> Hello.twice(_:)  (Hello/main.swift:4)"), "\(traced.stderr)")
        #expect(traced.stderr.contains("-> Greeting.Greeting.text(for:)  (Greeting/Greeting.swift:4)"))

        try run(
            "swift", ["build", "--package-path", package, "--scratch-path", package + "/.build/plain"], check: true)
        let plain = try run(package + "/.build/plain/debug/Hello", [], environment: ["TRAIL_TRACE": "1"], check: true)
        #expect(plain.stdout == "hello, setup 42\n")
        #expect(plain.stderr.isEmpty)
        // An untraced build does not link the runtime.
        let symbols = try run("nm", [package + "/.build/plain/debug/Hello"], check: true)
        #expect(!symbols.stdout.contains("trail_"), "the untraced Hello links no runtime symbol")

        // A second setup changes nothing.
        let again = try run(Paths.trail, ["setup", "--package", package], check: true)
        #expect(again.stderr.contains("nothing to do"))
        #expect(Transcript.read(manifest) == edited)

        try run(
            "swift", ["package"] + scratch + ["--allow-writing-to-package-directory", "trail", "setup", "--undo"],
            check: true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: manifest)) == original)
        #expect(Self.placeholders(package).isEmpty)
    }

    /// A `.target` holding main.swift is an executable only while SwiftPM sees main.swift among its sources:
    /// setup keeps it there (untraced), or the traced build would compile top-level code as a library's.
    @Test func aLegacyExecutableTargetKeepsItsMainSwift() throws {
        let package = Paths.temporaryDirectory("legacy-executable")
        defer { try? FileManager.default.removeItem(atPath: package) }
        try FileManager.default.createDirectory(atPath: package + "/Sources/App", withIntermediateDirectories: true)
        try "func greet() -> String { \"hi\" }\nprint(greet())\n".write(
            toFile: package + "/Sources/App/main.swift", atomically: true, encoding: .utf8)
        let manifest = """
            // swift-tools-version:5.9
            import PackageDescription

            let package = Package(
                name: "Legacy",
                dependencies: [.package(path: "\(Paths.packageRoot)")],
                targets: [.target(name: "App")]
            )

            """
        try manifest.write(toFile: package + "/Package.swift", atomically: true, encoding: .utf8)
        try run(Paths.trail, ["setup", "--package", package], check: true)
        #expect(
            Transcript.read(package + "/Package.swift").contains(
                #"sources: traced ? ["_Trail.swift", "main.swift"] : nil"#))
        try run(Paths.trail, ["setup", "--package", package, "--undo"], check: true)
        #expect(Transcript.read(package + "/Package.swift") == manifest)
    }

    /// Manifests set up by earlier versions, whose Trail product was in the target's array for every build,
    /// are still undone byte for byte.
    @Test func undoOfAnEarlierSetupWithAnUnconditionalProduct() throws {
        let original = """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "P",
                dependencies: [.package(name: "swift-trail", path: "../swift-trail")],
                targets: [
                    .target(name: "A", dependencies: ["B"]),
                    .target(name: "B"),
                ]
            )

            """
        let earlier = """
            // swift-tools-version:6.0
            import PackageDescription

            // Added by `trail setup`: `TRAIL=1 swift build --scratch-path .build/trail` traces this package.
            let traced = Context.environment["TRAIL"] == "1"

            let package = Package(
                name: "P",
                dependencies: [.package(name: "swift-trail", path: "../swift-trail")],
                targets: [
                    .target(name: "A", dependencies: ["B", .product(name: "Trail", package: "swift-trail")], sources: traced ? ["_Trail.swift"] : nil, plugins: traced ? [.plugin(name: "TrailPlugin", package: "swift-trail")] : []),
                    .target(name: "B", dependencies: [.product(name: "Trail", package: "swift-trail")], sources: traced ? ["_Trail.swift"] : nil, plugins: traced ? [.plugin(name: "TrailPlugin", package: "swift-trail")] : []),
                ]
            )

            """
        let package = try Self.twoTargetPackage("setup-earlier", manifest: earlier)
        defer { try? FileManager.default.removeItem(atPath: package) }
        try "// trail setup added: dependency, sources, plugins (removed by 'trail setup --undo')\n"
            .write(toFile: package + "/Sources/A/_Trail.swift", atomically: true, encoding: .utf8)
        try "// trail setup added: dependencies, sources, plugins (removed by 'trail setup --undo')\n"
            .write(toFile: package + "/Sources/B/_Trail.swift", atomically: true, encoding: .utf8)
        let undo = try run(Paths.trail, ["setup", "--package", package, "--undo"])
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(Transcript.read(package + "/Package.swift") == original)

        // And the same targets set up now: the product only for traced builds.
        try run(Paths.trail, ["setup", "--package", package], check: true)
        let now = Transcript.read(package + "/Package.swift")
        #expect(
            now.contains(
                #".target(name: "A", dependencies: ["B"] + (traced ? [.product(name: "Trail", package: "swift-trail")] : []), sources:"#
            ))
        #expect(
            now.contains(
                #".target(name: "B", dependencies: traced ? [.product(name: "Trail", package: "swift-trail")] : [], sources:"#
            ))
        try run(Paths.trail, ["setup", "--package", package, "--undo"], check: true)
        #expect(Transcript.read(package + "/Package.swift") == original)
    }

    @Test func dryRunPrintsADiffAndUndoRemovesOnlyWhatSetupAdded() throws {
        let package = try Self.plainPackage()
        defer { try? FileManager.default.removeItem(atPath: package) }
        let manifest = package + "/Package.swift"
        let original = Transcript.read(manifest)
        let dry = try run(Paths.trail, ["setup", "--package", package, "--target", "Hello", "--dry-run"], check: true)
        #expect(dry.stdout.contains("+let traced = Context.environment[\"TRAIL\"] == \"1\"\n"))
        #expect(dry.stdout.contains("-            path: \"Sources/Hello\"\n+            dependencies: "))
        #expect(
            dry.stdout.contains(
                "+            path: \"Sources/Hello\",\n+            sources: traced ? [\"_Trail.swift\"] : nil,\n"))
        #expect(dry.stdout.contains("+++ b/\(package)/Sources/Hello/_Trail.swift"))
        #expect(Transcript.read(manifest) == original)
        #expect(Self.placeholders(package).isEmpty)

        // One target, then another: undo of everything restores the manifest.
        try run(Paths.trail, ["setup", "--package", package, "--target", "Hello"], check: true)
        try run(Paths.trail, ["setup", "--package", package], check: true)
        #expect(Self.placeholders(package).count == 2)
        try run(Paths.trail, ["setup", "--package", package, "--undo", "--target", "Greeting"], check: true)
        #expect(Transcript.read(manifest).contains("let traced"), "Hello still uses it")
        try run(Paths.trail, ["setup", "--package", package, "--undo"], check: true)
        #expect(Transcript.read(manifest) == original)
        #expect(Self.placeholders(package).isEmpty)

        // A target with the pattern written by hand is not setup's to undo.
        let sample = Transcript.read(Paths.packageRoot + "/Samples/Fib/Package.swift")
        try sample.write(toFile: manifest, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: package + "/Sources/Fib", withIntermediateDirectories: true)
        try "// placeholder\n".write(toFile: package + "/Sources/Fib/_Trail.swift", atomically: true, encoding: .utf8)
        try "print(1)\n".write(toFile: package + "/Sources/Fib/main.swift", atomically: true, encoding: .utf8)
        #expect(
            try run(Paths.trail, ["setup", "--package", package], check: true).stderr.contains("Fib already set up"))
        #expect(
            try run(Paths.trail, ["setup", "--package", package, "--undo"], check: true).stderr.contains(
                "nothing to undo"))
        #expect(Transcript.read(manifest) == sample)
    }

    /// A fresh package with Swift targets A and B (a function each) and `manifest`.
    static func twoTargetPackage(_ name: String, manifest: String) throws -> String {
        let package = Paths.temporaryDirectory(name)
        for target in ["A", "B"] {
            try FileManager.default.createDirectory(
                atPath: package + "/Sources/" + target, withIntermediateDirectories: true)
            try "func f() {}\n".write(
                toFile: package + "/Sources/\(target)/\(target).swift", atomically: true, encoding: .utf8)
        }
        try manifest.write(toFile: package + "/Package.swift", atomically: true, encoding: .utf8)
        return package
    }

    /// Writes `manifest` into a fresh package with Swift targets A and B, and runs setup on it.
    func refused(_ manifest: String) throws -> (result: ProcessResult, path: String) {
        let package = try Self.twoTargetPackage("setup-refused", manifest: manifest)
        let result = try run(Paths.trail, ["setup", "--package", package])
        #expect(Transcript.read(package + "/Package.swift") == manifest, "a refused manifest is left as it was")
        #expect(!FileManager.default.fileExists(atPath: package + "/Sources/A/_Trail.swift"))
        return (result, package + "/Package.swift")
    }

    static let header = """
        // swift-tools-version:6.0
        import PackageDescription

        let package = Package(
            name: "P",
            dependencies: [.package(name: "swift-trail", path: "../swift-trail")],

        """

    /// swift-log's manifest adjusts every target's settings in a loop: reading `package.targets` is no reason to refuse.
    @Test func aLoopThatAdjustsSettingsIsAccepted() throws {
        let manifest =
            Self.header + """
                    targets: [.target(name: "A"), .target(name: "B")]
                )
                for target in package.targets where target.type == .regular {
                    var settings = target.swiftSettings ?? []
                    settings.append(.enableUpcomingFeature("ExistentialAny"))
                    target.swiftSettings = settings
                }

                """
        let package = try Self.twoTargetPackage("setup-settings-loop", manifest: manifest)
        let result = try run(Paths.trail, ["setup", "--package", package])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            Transcript.read(package + "/Package.swift").components(
                separatedBy: #"sources: traced ? ["_Trail.swift"] : nil"#
            ).count == 3)
        try run(Paths.trail, ["setup", "--package", package, "--undo"], check: true)
        #expect(Transcript.read(package + "/Package.swift") == manifest)
    }

    /// swift-argument-parser appends macOS-only targets in code: the targets written out are set up, and a note
    /// says which were not.
    @Test func targetsAddedInCodeAreLeftAloneWithANote() throws {
        let manifest =
            Self.header + """
                    targets: [.target(name: "A")]
                )
                #if os(macOS)
                package.targets.append(contentsOf: [.target(name: "B")])
                #endif

                """
        let package = try Self.twoTargetPackage("setup-appended", manifest: manifest)
        let result = try run(Paths.trail, ["setup", "--package", package])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains("\(package)/Package.swift:10:1: note: targets added by code here are not set up"),
            "\(result.stderr)")
        #expect(result.stderr.contains("set up A in"))
        #expect(
            Transcript.read(package + "/Package.swift").contains(
                #".target(name: "A", dependencies: traced ? [.product("#))
        try run(Paths.trail, ["setup", "--package", package, "--undo"], check: true)
        #expect(Transcript.read(package + "/Package.swift") == manifest)
    }

    /// swift-async-algorithms adds its dependencies in code: swift-trail is found there too.
    @Test func aDependencyAddedInCodeIsFound() throws {
        let manifest = """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "P",
                targets: [.target(name: "A"), .target(name: "B")]
            )
            package.dependencies += [.package(name: "swift-trail", path: "../swift-trail")]

            """
        let package = try Self.twoTargetPackage("setup-dependency-in-code", manifest: manifest)
        let result = try run(Paths.trail, ["setup", "--package", package])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            Transcript.read(package + "/Package.swift").components(
                separatedBy: #"traced ? [.product(name: "Trail", package: "swift-trail")] : []"#
            ).count == 3)
        try run(Paths.trail, ["setup", "--package", package, "--undo"], check: true)
        #expect(Transcript.read(package + "/Package.swift") == manifest)
    }

    @Test func refusesManifestsItCannotEditSafely() throws {
        // Targets added by a loop: refused at the line that adds them, with the lines to add by hand.
        let loop = try refused(
            Self.header + """
                    targets: []
                )
                for name in ["A", "B"] {
                    package.targets.append(.target(name: name))
                }

                """)
        #expect(loop.result.status == 1)
        #expect(
            loop.result.stderr.hasPrefix(
                "\(loop.path):10:5: error: cannot edit safely: targets are added by code, and none is written out"),
            "\(loop.result.stderr)")
        #expect(
            loop.result.stderr.contains(
                #"plugins: traced ? [.plugin(name: "TrailPlugin", package: "swift-trail")] : []"#))

        // Replaced in code: what setup writes could be thrown away.
        let replaced = try refused(
            Self.header + """
                    targets: [.target(name: "A"), .target(name: "B")]
                )
                package.targets = [.target(name: "A")]

                """)
        #expect(
            replaced.result.stderr.hasPrefix(
                "\(replaced.path):9:1: error: cannot edit safely: targets are replaced or changed by code"),
            "\(replaced.result.stderr)")

        let mapped = try refused(
            Self.header + """
                    targets: ["A", "B"].map { .target(name: $0) }
                )

                """)
        #expect(
            mapped.result.stderr.hasPrefix(
                "\(mapped.path):7:5: error: cannot edit safely: `targets:` is not an array literal"),
            "\(mapped.result.stderr)")

        let ownSources = try refused(
            Self.header + """
                    targets: [
                        .target(name: "A"),
                        .target(name: "B", sources: ["B.swift"]),
                    ]
                )

                """)
        #expect(
            ownSources.result.stderr.hasPrefix(
                "\(ownSources.path):9:28: error: cannot edit safely: target 'B' already has `sources:`"),
            "\(ownSources.result.stderr)")

        let computedName = try refused(
            Self.header + """
                    targets: [.target(name: "A" + "")]
                )

                """)
        #expect(
            computedName.result.stderr.contains(
                "Package.swift:7:15: error: cannot edit safely: a target whose name is not a string literal"),
            "\(computedName.result.stderr)")

        let noTrail = try refused(
            """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "P",
                targets: [.target(name: "A")]
            )

            """)
        #expect(
            noTrail.result.stderr.contains(
                "Package.swift:4:15: error: cannot edit safely: no swift-trail package among the manifest's dependencies"
            ),
            "\(noTrail.result.stderr)")
        #expect(noTrail.result.stderr.contains(#".package(name: "swift-trail", path: "<path to swift-trail>")"#))
    }
}
