import Foundation
import Testing
import TrailTestSupport

/// Tracing never changes what a traced file sees. The runtime's interface loads nothing beyond the standard
/// library, and the ImportLookup fixture (glibc's FTSENT under MemberImportVisibility, and a `Bool` member that
/// Synchronization also declares) builds with warnings as errors untraced, traced in place and traced through
/// the plugin, with the Trail import in the same place both ways.
@Suite struct ImportLookupTests {
    /// The modules a file that imports `Trail` may load: the standard library and what every file loads.
    static let allowedModules: Set<String> = [
        "Swift", "SwiftOnoneSupport", "_Concurrency", "_StringProcessing", "Trail", "TrailExit",
    ]

    /// The Swift modules that type-checking `source` loads, from the compiler's loaded-module trace.
    static func loadedModules(_ source: String) throws -> Set<String> {
        let directory = Paths.temporaryDirectory("loaded-modules")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try source.write(toFile: directory + "/client.swift", atomically: true, encoding: .utf8)
        let trace = directory + "/trace.json"
        try run(
            "swiftc",
            [
                "-typecheck", directory + "/client.swift", "-module-name", "Client",
                "-I", Paths.buildDirectory + "/Modules", "-I", Paths.packageRoot + "/Sources/CTrailHooks/include",
                "-emit-loaded-module-trace-path", trace,
            ], check: true)
        // One JSON object per line, one line per compile job.
        var names: Set<String> = []
        for line in try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            for module in object?["swiftmodulesDetailedInfo"] as? [[String: Any]] ?? [] {
                if let name = module["name"] as? String { names.insert(name) }
            }
        }
        return names
    }

    @Test func aTracedFileLoadsOnlyTheStandardLibraryAndTrail() throws {
        let loaded = try Self.loadedModules(
            """
            import enum Trail.Trail; import TrailExit
            func f() { Trail.enter("Client.f()"); Trail.exit() }
            func g() async { let span = Trail.enterAsync("Client.g()"); Trail.exit(span) }
            func h() -> Int { Trail.enter("Client.h()"); return 1 ~>| Trail.Exit() }

            """)
        #expect(loaded.contains("Trail") && loaded.contains("TrailExit"))
        #expect(
            loaded.subtracting(Self.allowedModules).isEmpty,
            "a traced file loads \(loaded.subtracting(Self.allowedModules).sorted())")
        // The whole module too, as a file that logs imports it.
        let whole = try Self.loadedModules(
            "import Trail\nlet log = Logger(label: \"x\")\nfunc h() { log.info(\"n \\(1)\") }\n")
        #expect(
            whole.subtracting(Self.allowedModules).isEmpty,
            "import Trail loads \(whole.subtracting(Self.allowedModules).sorted())")
    }

    /// `TrailExit`, imported whole by traced files, declares the exit operators and nothing else: `~>|` (and its
    /// overloads per recordable type, typed pointer and for optionals, for a build with values) and `~>>`, a kept
    /// result's.
    @Test func theExitModuleDeclaresOnlyTheOperators() throws {
        let interface = try String(
            contentsOfFile: Paths.buildDirectory + "/Modules/TrailExit.swiftinterface", encoding: .utf8)
        let declarations = Set(
            interface.split(separator: "\n").filter {
                !$0.hasPrefix("//") && !$0.hasPrefix("import ") && !$0.hasPrefix(" ") && !$0.hasPrefix("#")
                    && !$0.hasPrefix("@_lifetime") && !$0.hasPrefix("@lifetime") && $0 != "}"
            }
            .map { $0.split(separator: "(").first.map(String.init) ?? "" })
        #expect(
            declarations == [
                "precedencegroup TrailExitPrecedence {", "infix operator ~>| : TrailExitPrecedence",
                "infix operator ~>> : TrailExitPrecedence", "@_transparent public func ~>| <Value>",
                "@_transparent public func ~>| ", "@_transparent public func ~>> <Value>",
                "@_transparent public func ~>> ", "@_transparent public func ~>| <Wrapped>",
                "@_transparent public func ~>> <Wrapped>", "@_transparent public func ~>| <Pointee>",
                "@_transparent public func ~>> <Pointee>",
            ], "\(declarations.sorted())")
    }

    /// A check that fails when a public import comes back: the runtime imports everything internally but the
    /// hooks' module, whose header includes nothing and whose module map re-exports nothing.
    @Test func theRuntimeImportsNothingPubliclyButTheHooks() throws {
        let runtime = Paths.packageRoot + "/Sources/Trail"
        var offending: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: runtime).sorted() where name.hasSuffix(".swift")
        {
            let lines = try String(contentsOfFile: runtime + "/" + name, encoding: .utf8).split(
                separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() {
                let words = line.split(separator: " ")
                guard let at = words.firstIndex(of: "import"), !line.hasPrefix("//"), !line.hasPrefix(" ") else {
                    continue
                }
                let modifiers = words[..<at].map(String.init)
                if modifiers == ["public"], words.dropFirst(at + 1).first == "CTrailHooks" { continue }
                if modifiers != ["internal"] && modifiers != ["private"] && modifiers != ["fileprivate"] {
                    offending.append("Sources/Trail/\(name):\(index + 1): \(line)")
                }
            }
        }
        #expect(offending == [], "imports that traced files would load:\n\(offending.joined(separator: "\n"))")
        let hooks = Paths.packageRoot + "/Sources/CTrailHooks/include"
        let header = try String(contentsOfFile: hooks + "/trail_hooks.h", encoding: .utf8)
        #expect(!header.contains("#include"), "trail_hooks.h includes a header")
        let moduleMap = try String(contentsOfFile: hooks + "/module.modulemap", encoding: .utf8)
        #expect(
            !moduleMap.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("export") })
    }

    /// A copy of the fixture with swift-trail pointed at this checkout.
    static func makePackage() throws -> String {
        let directory = Paths.temporaryDirectory("import-lookup")
        try FileManager.default.removeItem(atPath: directory)
        try FileManager.default.copyItem(atPath: Paths.fixture("ImportLookup"), toPath: directory)
        let manifest = directory + "/Package.swift"
        try String(contentsOfFile: manifest, encoding: .utf8)
            .replacingOccurrences(of: #"path: "../../..""#, with: "path: \(String(reflecting: Paths.packageRoot))")
            .write(toFile: manifest, atomically: true, encoding: .utf8)
        return directory
    }

    /// Builds with warnings as errors; the build must succeed and print no diagnostic.
    static func build(_ package: String, scratch: String, environment: [String: String] = [:]) throws {
        let result = try run(
            "swift",
            [
                "build", "--package-path", package, "--scratch-path", scratch,
                "-Xswiftc", "-warnings-as-errors",
            ], environment: environment)
        let log = result.stdout + result.stderr
        try #require(result.status == 0, "\(log.suffix(3000))")
        #expect(!log.contains("warning:") && !log.contains("error:"), "\(log.suffix(3000))")
    }

    static let expectedOutput = "word Bool is stored as word\nfiles: 2\n"
    static let expectedCalls = [
        "-> LookupApp.run()", "-> Atomicish.representation()", "-> Atomicish.Bool.describe()",
        "-> Walk.countFiles(under:)", "-> Walk.isRegularFile(_:)",
    ]

    /// Runs the app over the fixture's C target (two regular files), traced when `TRAIL_TRACE` is set.
    static func runApp(_ binary: String, package: String) throws -> ProcessResult {
        try run(binary, [package + "/Sources/CWalk"], environment: ["TRAIL_TRACE": "1"], check: true)
    }

    /// Distinct calls in first-seen order, without pids, depths and sites.
    static func calls(_ trace: String) -> [String] {
        var seen: [String] = []
        for line in trace.split(separator: "\n") {
            guard let arrow = line.range(of: "-> ") else { continue }
            let call = String(line[arrow.lowerBound...]).components(separatedBy: "  (")[0]
            if !seen.contains(call) { seen.append(call) }
        }
        return seen
    }

    @Test func buildsTheSameUntracedInPlaceAndThroughThePlugin() throws {
        let package = try Self.makePackage()
        defer { try? FileManager.default.removeItem(atPath: package) }

        // Untraced: the baseline, with no diagnostics.
        try Self.build(package, scratch: package + "/.build/plain")
        let plain = try Self.runApp(package + "/.build/plain/debug/LookupApp", package: package)
        #expect(plain.stdout == Self.expectedOutput)
        #expect(Self.calls(plain.stderr) == [])

        // Through the plugin: the copy imports Trail after the file's first import, as in place.
        try Self.build(package, scratch: package + "/.build/trail", environment: ["TRAIL": "1"])
        let copies = try FileManager.default.subpathsOfDirectory(atPath: package + "/.build/trail/plugins/outputs")
        let walkCopy = try #require(copies.first { $0.hasSuffix("/Walk.trail.swift") })
        let copyText = try String(
            contentsOfFile: package + "/.build/trail/plugins/outputs/" + walkCopy, encoding: .utf8)
        #expect(copyText.contains("\nimport CWalk/*<trail*/; import enum Trail.Trail; import TrailExit/*trail>*/\n"))
        let plugin = try Self.runApp(package + "/.build/trail/debug/LookupApp", package: package)
        #expect(plugin.stdout == Self.expectedOutput)
        #expect(Self.calls(plugin.stderr) == Self.expectedCalls)

        // In place: the same import, the same build, the same calls.
        try run(Paths.trail, ["instrument", "--in-place", package + "/Sources"], check: true)
        let walk = try String(contentsOfFile: package + "/Sources/Walk/Walk.swift", encoding: .utf8)
        #expect(walk.hasPrefix("import CWalk/*<trail*/; import enum Trail.Trail; import TrailExit/*trail>*/\n"))
        try Self.build(package, scratch: package + "/.build/plain")
        let inPlace = try Self.runApp(package + "/.build/plain/debug/LookupApp", package: package)
        #expect(inPlace.stdout == Self.expectedOutput)
        #expect(Self.calls(inPlace.stderr) == Self.expectedCalls)
    }
}
