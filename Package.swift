// swift-tools-version:6.2
import PackageDescription
import Foundation

/// The toolchain's SwiftSyntax lives in `<toolchain>/usr/lib/swift/host`. Find that folder, in order:
/// `SWIFT_HOST_LIBS`; the toolchain evaluating this manifest; `swift` on PATH.
func findSwiftHostLibs() -> String {
    let fm = FileManager.default
    func valid(_ dir: String) -> String? {
        fm.fileExists(atPath: dir + "/SwiftSyntax.swiftmodule") ? dir : nil
    }
    if let dir = Context.environment["SWIFT_HOST_LIBS"], !dir.isEmpty {
        guard let found = valid(dir) else {
            fatalError("SWIFT_HOST_LIBS=\(dir) has no SwiftSyntax.swiftmodule")
        }
        return found
    }
    // /proc files report size 0, so String(contentsOfFile:) would stop at 4 KiB.
    if let maps = FileHandle(forReadingAtPath: "/proc/self/maps")?.readDataToEndOfFile(),
       let text = String(data: maps, encoding: .utf8) {
        for line in text.split(separator: "\n") where line.hasSuffix("/libPackageDescription.so") {
            guard let slash = line.firstIndex(of: "/") else { continue }
            let lib = URL(fileURLWithPath: String(line[slash...])).resolvingSymlinksInPath()
            // <toolchain>/usr/lib/swift/pm/ManifestAPI/libPackageDescription.so -> ../../host
            let host = lib.deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("host").standardizedFileURL.path
            if let found = valid(host) { return found }
        }
    }
    let path = Context.environment["PATH"] ?? ""
    for dir in path.split(separator: ":") {
        let swift = URL(fileURLWithPath: String(dir)).appendingPathComponent("swift")
        guard fm.isExecutableFile(atPath: swift.path) else { continue }
        // <toolchain>/usr/bin/swift -> <toolchain>/usr/lib/swift/host
        let usr = swift.resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
        if let found = valid(usr.appendingPathComponent("lib/swift/host").path) { return found }
    }
    fatalError("""
        swift-trail: cannot find the toolchain's SwiftSyntax (usr/lib/swift/host). \
        Set SWIFT_HOST_LIBS to the folder that holds SwiftSyntax.swiftmodule.
        """)
}

let hostLibs = findSwiftHostLibs()
let syntaxModules = ["SwiftSyntax", "SwiftParser", "SwiftParserDiagnostics", "SwiftDiagnostics", "SwiftBasicFormat"]
let syntaxSwiftSettings: [SwiftSetting] = [.unsafeFlags(["-I", hostLibs])]
let syntaxLinkerSettings: [LinkerSetting] =
    [.unsafeFlags(["-L", hostLibs, "-Xlinker", "-rpath", "-Xlinker", hostLibs])]
    + syntaxModules.map { .linkedLibrary($0) }

/// A static executable that links libdw.a, which needs elfutils' compression libraries after it.
let staticExecutable: [LinkerSetting] =
    [.unsafeFlags(["-static-executable", "-Xlinker", "-lz", "-Xlinker", "-llzma", "-Xlinker", "-lbz2"])]
/// The same with Foundation, whose static archives SwiftPM names in an order the linker cannot resolve alone:
/// they are named again, after everything that uses them.
let staticFoundationExecutable: [LinkerSetting] = [.unsafeFlags(
    ["-static-executable", "-Xlinker", "-lz", "-Xlinker", "-llzma", "-Xlinker", "-lbz2"]
    + ["Foundation", "FoundationInternationalization", "FoundationEssentials", "CoreFoundation", "_FoundationICU",
       "_FoundationCollections", "_FoundationCShims", "swiftSynchronization", "stdc++", "m"]
        .flatMap { ["-Xlinker", "-l\($0)"] })]

/// For the command-line tools, whose start-up is most of a short run: a generic type's metadata (an array of a
/// struct of ours) is got through its accessor, not by demangling its mangled name at first use, which cost a
/// fifth of a one-crash `trail-symbolize` run's instructions. (Not for the runtime's targets, TrailFormat among
/// them: `trail test` declares those again in its copy of this manifest.)
let quickStart: SwiftSetting = .unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"])

let package = Package(
    name: "swift-trail",
    products: [
        .library(name: "Trail", targets: ["Trail", "TrailExit"]),
        // For tests that compile instrumented fixtures with swiftc against the runtime.
        .library(name: "TrailDynamic", type: .dynamic, targets: ["Trail", "TrailExit"]),
        .executable(name: "trail", targets: ["trail"]),
        .executable(name: "trail-rewrite", targets: ["trail-rewrite"]),
        .executable(name: "trail-symbolize", targets: ["trail-symbolize"]),
        .executable(name: "trail-resources", targets: ["trail-resources"]),
        .plugin(name: "TrailPlugin", targets: ["TrailPlugin"]),
        .plugin(name: "TrailCommand", targets: ["TrailCommand"]),
        .plugin(name: "TrailResources", targets: ["TrailResourcesPlugin"]),
        // swift-log's and swift-distributed-tracing's APIs over Trail, each behind a trait of its name.
        .library(name: "TrailLogging", targets: ["TrailLogging"]),
        .library(name: "TrailTracing", targets: ["TrailTracing"]),
    ],
    // A trait enables an integration and its dependency. None is on by default: SwiftPM then neither fetches
    // nor builds swift-log or swift-distributed-tracing for a package that uses Trail alone (IntegrationTests).
    traits: [
        .trait(name: "TrailLogging", description: "TrailLogging: a swift-log LogHandler that writes through Trail."),
        .trait(name: "TrailTracing", description: "TrailTracing: a swift-distributed-tracing Tracer that records into Trail's trace."),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.12.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.1.0"),
    ],
    targets: [
        // The hot path is optimized even in debug builds: tracing a debug build is the point.
        .target(name: "CTrailShim", dependencies: ["CTrailHooks"], cSettings: [.unsafeFlags(["-O2", "-fdebug-default-version=4"])]),
        // The hooks' declarations alone: the only module that Trail's public interface loads.
        .target(name: "CTrailHooks", cSettings: [.unsafeFlags(["-fdebug-default-version=4"])]),
        // Optimized even in debug builds, and without dynamic exclusivity checks on the logging path. No Foundation:
        // loading it and ICU cost every traced launch ~2.4 ms. Built with library evolution so that its internal
        // imports (Glibc, Synchronization, the C shim) stay its own: a client of a module without it loads them too,
        // and tracing a file would change its name lookup. Passed to the frontend with module-name aliasing, so
        // SwiftPM neither verifies an interface nor warns that `Trail.Trail` shadows the module. Its public types
        // that clients switch over or inline into are @frozen.
        .target(name: "Trail", dependencies: ["CTrailHooks", "CTrailShim", "TrailFormat"],
                swiftSettings: [.unsafeFlags(["-O", "-enforce-exclusivity=unchecked", "-Xfrontend", "-enable-library-evolution",
                                              "-Xfrontend", "-alias-module-names-in-module-interface"]),
                                .enableExperimentalFeature("Lifetimes")]),
        // The exit operator of one-value bodies, alone in its module: traced files import it whole.
        .target(name: "TrailExit", dependencies: ["Trail"],
                swiftSettings: [.unsafeFlags(["-Xfrontend", "-enable-library-evolution",
                                              "-Xfrontend", "-alias-module-names-in-module-interface"]),
                                .enableExperimentalFeature("Lifetimes")]),
        // The formats' one definition, for every reader: crash blocks and markers, trace files. No dependencies,
        // no Foundation: the lean trail-symbolize and the runtime read through it too.
        .target(name: "TrailFormat"),
        .target(name: "TrailLogging", dependencies: ["Trail", .product(name: "Logging", package: "swift-log", condition: .when(traits: ["TrailLogging"]))]),
        .target(name: "TrailTracing", dependencies: ["Trail", "CTrailShim", "TrailFormat",
                                                    .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["TrailTracing"]))]),
        .target(name: "TrailTrace", dependencies: ["TrailFormat"], swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"]), quickStart]),
        // What the viewers beyond replay and report compute: info, graph, report --diff, the tui's model.
        .target(name: "TrailViews", dependencies: ["TrailTrace", "TrailFormat"], swiftSettings: [quickStart]),
        // OTLP/JSON encoding, streaming request writers, the OTLP/HTTP client, span and trace ids.
        .target(name: "TrailTelemetry", dependencies: ["TrailFormat", "TrailTrace", "CZlib"], swiftSettings: [quickStart]),
        // zlib (gzip request bodies), which libdw already links.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CLibdw", pkgConfig: "libdw", providers: [.apt(["libdw-dev"])]),
        // libstdc++ for __cxa_demangle, which the symbolizer calls directly.
        .target(name: "TrailSymbolizer", dependencies: ["CLibdw", "TrailFormat"], swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"]), quickStart],
                linkerSettings: [.linkedLibrary("stdc++")]),
        // One file's text and options in, the edited text out: SwiftSyntax and nothing else.
        .target(name: "TrailRewriter", dependencies: ["TrailFormat"], swiftSettings: syntaxSwiftSettings, linkerSettings: syntaxLinkerSettings),
        // Many files: packages and folders, the thread pool, progress, atomic writes, diffs, the declaration list.
        .target(name: "TrailDriver", dependencies: ["TrailRewriter"], swiftSettings: syntaxSwiftSettings),
        // The argument tables, the parser and the runner: no dependencies.
        .target(name: "TrailCommandLine", swiftSettings: [quickStart]),
        // Resource files and XML identifiers to Swift constants: Foundation (and FoundationXML) only.
        .target(name: "TrailResources", dependencies: ["TrailFormat"]),
        // The resources verb of `trail-resources`, which the plugin runs and `trail resources` hands on to.
        .target(name: "TrailResourcesVerb", dependencies: ["TrailCommandLine", "TrailResources"]),
        .executableTarget(name: "trail-resources", dependencies: ["TrailCommandLine", "TrailResourcesVerb"]),
        // The symbolize verb, shared by `trail` and the lean `trail-symbolize`.
        .target(name: "TrailSymbolizeVerb", dependencies: ["TrailCommandLine", "TrailSymbolizer", "TrailFormat"], swiftSettings: [quickStart]),
        // The viewers and the symbolizer, with the rest handed on (ForwardedVerbs). Start-up is most of a
        // viewer's run on a small trace: no SwiftSyntax, and a static executable with Foundation linked in, so the
        // dynamic loader has nothing to load or bind.
        .executableTarget(name: "trail", dependencies: ["TrailCommandLine", "TrailSymbolizeVerb", "TrailTrace", "TrailSymbolizer",
                                                      "TrailFormat", "TrailTelemetry", "TrailViews"],
                          swiftSettings: [quickStart], linkerSettings: staticFoundationExecutable),
        // The verbs that parse Swift: instrument, strip, scan and setup. The plugins run this binary.
        .executableTarget(name: "trail-rewrite", dependencies: ["TrailCommandLine", "TrailDriver", "TrailRewriter", "TrailFormat"],
                          swiftSettings: syntaxSwiftSettings, linkerSettings: syntaxLinkerSettings),
        // Start-up is most of a one-crash run: no SwiftSyntax, no Foundation, and a static executable.
        .executableTarget(name: "trail-symbolize", dependencies: ["TrailCommandLine", "TrailSymbolizeVerb"],
                          swiftSettings: [quickStart], linkerSettings: staticExecutable),

        .plugin(name: "TrailPlugin", capability: .buildTool(), dependencies: ["trail-rewrite"]),
        // The product is TrailResources; the target needs another name beside the library's.
        .plugin(name: "TrailResourcesPlugin", capability: .buildTool(), dependencies: ["trail-resources"], path: "Plugins/TrailResources"),
        .plugin(
            name: "TrailCommand",
            capability: .command(
                intent: .custom(verb: "trail", description: "Set up TRAIL=1 tracing (setup), or instrument or strip Swift sources in place"),
                permissions: [.writeToPackageDirectory(reason: "trail setup edits Package.swift; instrument/strip rewrite sources in place")]),
            dependencies: ["trail-rewrite"]),

        .executableTarget(name: "trail-bench", dependencies: ["TrailDriver", "Trail"], path: "Benchmarks/TrailBench",
                          swiftSettings: syntaxSwiftSettings, linkerSettings: syntaxLinkerSettings),

        // The probe's modes, one enum shared by the probe and the tests that run it (through TrailTestSupport).
        .target(name: "RuntimeProbeModes", path: "Tests/RuntimeProbeModes"),
        .target(name: "TrailTestSupport", dependencies: ["RuntimeProbeModes"], path: "Tests/TrailTestSupport"),
        .testTarget(name: "TrailRewriterTests", dependencies: ["TrailRewriter", "TrailDriver", "TrailTestSupport"],
                    swiftSettings: syntaxSwiftSettings, linkerSettings: syntaxLinkerSettings),
        // Swift 5 mode: the probe calls C stdio on `stderr` directly, as other code in a process would.
        .executableTarget(name: "trail-probe", dependencies: ["Trail", "RuntimeProbeModes"], path: "Tests/RuntimeProbe",
                          swiftSettings: [.swiftLanguageMode(.v5)]),
        // The differential corpus (ProcessCorpusTests): the same programs with Trail and without it. The plain
        // target's folder is a link to the traced one's.
        .executableTarget(name: "trail-corpus", dependencies: ["Trail"], path: "Tests/ProcessCorpus",
                          swiftSettings: [.swiftLanguageMode(.v5), .define("TRAIL_CORPUS_TRACED")]),
        .executableTarget(name: "trail-corpus-plain", path: "Tests/ProcessCorpusPlain",
                          swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(name: "EndToEndTests", dependencies: ["TrailTestSupport", "TrailFormat"]),
        .testTarget(name: "TrailRuntimeTests", dependencies: ["TrailTestSupport", "TrailTrace", "TrailFormat"]),
        .testTarget(name: "TrailTelemetryTests", dependencies: ["TrailTelemetry", "TrailTestSupport"]),
        .testTarget(name: "TrailFormatTests", dependencies: ["TrailFormat", "TrailTestSupport"]),
        .testTarget(name: "TrailTraceTests", dependencies: ["TrailTrace", "TrailFormat", "TrailTestSupport"]),
        .testTarget(name: "TrailViewsTests", dependencies: ["TrailViews", "TrailTrace", "TrailFormat", "TrailTestSupport"]),
        .testTarget(name: "TrailResourcesTests", dependencies: ["TrailResources", "TrailTestSupport"]),
        .testTarget(name: "TrailSymbolizerTests", dependencies: ["TrailSymbolizer", "TrailFormat", "TrailTestSupport"]),
        .testTarget(name: "TrailDriverTests", dependencies: ["TrailDriver", "TrailTestSupport"],
                    swiftSettings: syntaxSwiftSettings, linkerSettings: syntaxLinkerSettings),
        .testTarget(name: "TrailCommandLineTests", dependencies: ["TrailCommandLine"]),
        // Checks of the repository itself: Docs/architecture.md against Package.swift and the tree.
        .testTarget(name: "RepositoryTests", dependencies: ["TrailTestSupport"]),
    ]
)
