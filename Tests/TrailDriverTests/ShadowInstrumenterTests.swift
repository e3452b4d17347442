import Foundation
import Testing
import TrailDriver
import TrailTestSupport

/// `trail test` and `trail run` keep an instrumented copy between runs and instrument only what changed; a copy
/// that another build of trail instrumented (its rewriter may have changed), or that values were switched on or
/// off for, is instrumented whole again.
@Suite struct ShadowInstrumenterTests {
    /// A package of two library targets, A and B.
    static func twoTargets(_ name: String) throws -> ScratchPackage {
        try ScratchPackage(
            name,
            manifest: """
                // swift-tools-version:6.0
                import PackageDescription
                let package = Package(name: "P", targets: [.target(name: "A"), .target(name: "B")])

                """)
    }

    @Test func anotherTrailOrSwitchedValuesInstrumentsTheCopyAgain() throws {
        let package = try Self.twoTargets("shadow-instrumenter")
        let shadow = try ShadowPackage(package: package.folder)
        func run(values: Bool = false) throws -> Int {
            let changes = try shadow.sync(trail: Paths.packageRoot)
            let report = try shadow.instrument(changes, values: values)
            try shadow.commit(changes)
            return report.changed + report.unchanged  // the files instrumented, changed or not
        }
        #expect(try run() == 2)
        #expect(try run() == 0)
        #expect(try run(values: true) == 2)
        #expect(try run(values: true) == 0)
        // As if trail had been rebuilt since: its stamp is not this executable's.
        try "trail 1 2.3 values 1\n".write(
            toFile: shadow.root + "/instrumented-by", atomically: true, encoding: .utf8)
        #expect(try run(values: true) == 2)
        #expect(try run(values: true) == 0)
    }

    /// A copy that an earlier trail left unparsable (its instrumenter had a bug) is instrumented again from the
    /// package's own file, not from itself, once another trail runs: swift-argument-parser's copy kept failing
    /// with `expected value in function call` after the fix, until `.build/trail-shadow` was removed by hand.
    @Test func anotherTrailStartsFromThePackagesFiles() throws {
        let package = try Self.twoTargets("shadow-broken-copy")
        let shadow = try ShadowPackage(package: package.folder)
        var changes = try shadow.sync(trail: Paths.packageRoot)
        _ = try shadow.instrument(changes, values: true)
        try shadow.commit(changes)
        let copied = shadow.copy + "/Sources/A/A.swift"
        try
            "func f(extension: Int) {/*<trail*/if Trail.tracing, Trail.enterWithValues(\"A.f(extension:) @ A/A.swift:1\", 1) { Trail.value(\"extension: Int\", extension) };/*trail>*/}\n"
            .write(toFile: copied, atomically: true, encoding: .utf8)
        try "trail 1 2.3 values 1\n".write(toFile: shadow.root + "/instrumented-by", atomically: true, encoding: .utf8)
        changes = try shadow.sync(trail: Paths.packageRoot)
        let report = try shadow.instrument(changes, values: true)
        #expect(report.errors.isEmpty, "\(report.errors)")
        let text = Transcript.read(copied)
        #expect(text.hasPrefix("func f() {/*<trail*/"), "\(text)")
    }
}

/// The package's dependencies, local (`path:`) and resolved checkouts, give their aliases of function types: a
/// parameter of another package's `Shouting` is a non-escaping closure, not passed to a recorder (`trail test
/// --values` on a package of swift-nio's users). Their `Never` functions are not taken.
@Suite struct ShadowDependencyDeclarationsTests {
    @Test func aliasesOfDependenciesAreKnown() throws {
        let folder = Paths.temporaryDirectory("shadow-dependencies")
        func write(_ text: String, _ path: String) throws {
            try FileManager.default.createDirectory(
                atPath: (folder + "/" + path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: folder + "/" + path, atomically: true, encoding: .utf8)
        }
        try write(
            "// swift-tools-version:6.0\nimport PackageDescription\nlet package = Package(name: \"Shouts\")\n",
            "Shouts/Package.swift")
        try write(
            "public typealias Shouting = (String) -> String\npublic func relay() -> Never { fatalError() }\n",
            "Shouts/Sources/Shouts/Shouts.swift")
        try write(
            """
            // swift-tools-version:6.0
            import PackageDescription
            let package = Package(name: "App", dependencies: [.package(path: "../Shouts")], targets: [.target(name: "A")])

            """, "App/Package.swift")
        try write("func relay(_ s: Shouting, _ w: Whisper) -> String { s(\"a\") }\n", "App/Sources/A/A.swift")
        let shadow = try ShadowPackage(package: folder + "/App")
        func instrument() throws -> BatchReport {
            let changes = try shadow.sync(trail: Paths.packageRoot)
            let report = try shadow.instrument(changes, values: true)
            try shadow.commit(changes)
            #expect(report.errors.isEmpty, "\(report.errors)")
            return report
        }
        _ = try instrument()
        var text = Transcript.read(shadow.copy + "/Sources/A/A.swift")
        #expect(text.contains(#"{ Trail.unread("_ s: Shouting"); Trail.value("_ w: Whisper", w) }"#), "\(text)")
        #expect(try instrument().changed == 0)
        // A checkout resolved since (the first build clones it): every file is instrumented again.
        try write("public typealias Whisper = (String) -> Void\n", "App/.build/checkouts/remote/Sources/Remote/R.swift")
        #expect(try instrument().changed == 1)
        text = Transcript.read(shadow.copy + "/Sources/A/A.swift")
        #expect(text.contains(#"{ Trail.unread("_ s: Shouting"); Trail.unread("_ w: Whisper") }"#), "\(text)")
        // `relay` here returns a String: the dependency's `Never` function of that name is not taken.
        #expect(text.contains(#"/*<trail*/return /*trail>*/s("a")"#), "\(text)")
    }
}

/// The copy's manifest points swift-trail at this checkout and keeps the traits the package asked for: the Server
/// Sample's TrailLogging and TrailTracing products do not build without them.
@Suite struct ShadowManifestTraitsTests {
    @Test func theTrailDependencyKeepsItsTraits() throws {
        let package = try ScratchPackage(
            "shadow-traits",
            manifest: """
                // swift-tools-version:6.1
                import PackageDescription
                let package = Package(
                    name: "P",
                    dependencies: [
                        .package(name: "swift-trail", path: "../..", traits: ["TrailLogging", "TrailTracing"]),
                    ],
                    targets: [.target(name: "A"), .target(name: "B")])

                """)
        let shadow = try ShadowPackage(package: package.folder)
        _ = try shadow.sync(trail: Paths.packageRoot)
        let copied = Transcript.read(shadow.copy + "/Package.swift")
        #expect(
            copied.contains(
                ".package(name: \"swift-trail\", path: \(String(reflecting: Paths.packageRoot)), "
                    + "traits: [\"TrailLogging\", \"TrailTracing\"])"), "\(copied)")
    }
}
