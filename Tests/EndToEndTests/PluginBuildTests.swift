import Foundation
import Testing
import TrailTestSupport

/// The plugin on every kind of target, through `TRAIL=1 swift build -Xswiftc -warnings-as-errors`: the
/// PluginMix fixture (a C target, a Swift target with nothing left to instrument, an executable with
/// `main.swift`) and the syntax zoo, in one package built in a temporary folder.
@Suite struct PluginBuildTests {
    /// A copy of the fixture with the zoo copied in and swift-trail pointed at this checkout.
    static func makePackage() throws -> String {
        let directory = Paths.temporaryDirectory("plugin-mix")
        let manager = FileManager.default
        try manager.removeItem(atPath: directory)
        try manager.copyItem(atPath: Paths.fixture("PluginMix"), toPath: directory)
        for (module, fixture) in [("Zoo", "Zoo"), ("ZooLog", "ZooLog")] {
            let sources = directory + "/Sources/" + module
            try manager.createDirectory(atPath: sources, withIntermediateDirectories: true)
            for name in try manager.contentsOfDirectory(atPath: Paths.fixture(fixture)) where name.hasSuffix(".swift") {
                try manager.copyItem(atPath: Paths.fixture(fixture) + "/" + name, toPath: sources + "/" + name)
            }
        }
        try "// The only source with TRAIL=1.\n".write(
            toFile: directory + "/Sources/Zoo/_Trail.swift", atomically: true, encoding: .utf8)
        let manifest = directory + "/Package.swift"
        try String(contentsOfFile: manifest, encoding: .utf8)
            .replacingOccurrences(of: #"path: "../../..""#, with: "path: \(String(reflecting: Paths.packageRoot))")
            .write(toFile: manifest, atomically: true, encoding: .utf8)
        return directory
    }

    /// Trace lines without thread, depth and duration: `-> Name  (Site)`.
    static func calls(_ trace: String) -> [String] {
        Transcript.maskTrace(trace).split(separator: "\n").compactMap { line in
            guard let arrow = line.range(of: "-> ") else { return nil }
            return String(line[arrow.lowerBound...])
        }
    }

    @Test func everyKindOfTargetBuildsTracedWithWarningsAsErrors() throws {
        let package = try Self.makePackage()
        defer { try? FileManager.default.removeItem(atPath: package) }
        // Experimental features reach the plugin's commands as trail-rewrite reads them, spaces and all.
        let build = try run(
            "swift",
            [
                "build", "--package-path", package, "--scratch-path", package + "/.build/trail",
                "-Xswiftc", "-warnings-as-errors",
            ],
            environment: ["TRAIL": "1", "TRAIL_EXPERIMENTAL_FEATURES": " ThenStatements "])
        let log = build.stdout + build.stderr
        try #require(build.status == 0, "\(log.suffix(3000))")
        #expect(!log.contains("warning:"), "\(log.suffix(3000))")
        #expect(!log.contains("Trail scanning CCounter") && !log.contains("Trail scanning Untraced"))
        let products = package + "/.build/trail/debug"

        // main.swift keeps its #fileID and lines; its functions and the other file's are traced; the C target
        // and the target that compiles its own files are not instrumented.
        let app = try run(products + "/App", [], environment: ["TRAIL_TRACE": "1"], check: true)
        #expect(app.stdout == "hello, mix\ncount 1 count 2\nDONE\nwhere: App/main.swift 11\n")
        #expect(
            Self.calls(app.stderr) == [
                "-> App.Greeter.greet()  (App/Greeter.swift:4)",
                "-> App.report(_:)  (App/main.swift:4)", "-> App.report(_:)  (App/main.swift:4)",
                "-> App.relay(_:_:)  (App/Relay.swift:5)",
            ])

        // With values, App's parameter of Untraced's alias `Shouting` is recorded by its type, not passed.
        let values = try run(
            "swift",
            [
                "build", "--package-path", package, "--scratch-path", package + "/.build/trail", "--product", "App",
                "-Xswiftc", "-warnings-as-errors",
            ],
            environment: ["TRAIL": "1", "TRAIL_VALUES": "1"])
        try #require(values.status == 0, "\((values.stdout + values.stderr).suffix(3000))")
        let valued = try run(products + "/App", [], environment: ["TRAIL_TRACE": "1"], check: true)
        #expect(valued.stdout == app.stdout)
        #expect(Self.calls(valued.stderr).last == #"-> App.relay(<Shouting>, "done")  (App/Relay.swift:5)"#)

        // The zoo without --closures: the calls of the expected transcript, less the closures.
        let zoo = try run(products + "/Zoo", [], environment: ["TRAIL_TRACE": "1"], check: true)
        #expect(zoo.stdout.contains("released r1"))
        let expected = Set(Self.calls(Transcript.read(Paths.fixture("Zoo/expected-trace.txt"))))
        let traced = Self.calls(zoo.stderr)
        #expect(traced.count > 50)
        #expect(traced.first == "-> Zoo.Shelf.init(name:)  (Zoo/Shelf.swift:15)")
        #expect(traced.filter { !expected.contains($0) } == [])
    }
}
