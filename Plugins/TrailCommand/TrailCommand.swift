import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory trail setup|instrument|strip [--target NAME]...`:
/// `setup` gives the manifest the TRAIL=1 pattern (`trail setup --package`); `instrument` and `strip` run the
/// `trail` CLI in place over the package's own Swift targets.
@main
struct TrailCommand: CommandPlugin {
    static let usage = """
        usage: swift package --allow-writing-to-package-directory trail <verb> [--target NAME]... [trail options]
          setup [--undo] [--dry-run]   add the TRAIL=1 pattern to Package.swift and _Trail.swift to each target;
                                       then TRAIL=1 swift build --scratch-path .build/trail traces the package
          instrument | strip           insert or remove trace calls in the sources themselves
        'trail <verb> --help' lists a verb's options.
        """

    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let names = extractor.extractOption(named: "target")
        guard let verb = extractor.remainingArguments.first, ["setup", "instrument", "strip"].contains(verb) else {
            throw PluginFailure(Self.usage)
        }
        let options = Array(extractor.remainingArguments.dropFirst())
        let trail = try context.tool(named: "trail-rewrite").url
        if verb == "setup" {
            return try run(
                trail,
                ["setup", "--package", context.package.directoryURL.path]
                    + names.flatMap { ["--target", $0] } + options, failure: "trail setup failed")
        }
        let targets = try names.isEmpty ? context.package.targets : context.package.targets(named: names)
        for case let target as SourceModuleTarget in targets where target.name != "Trail" {
            let files = target.sourceFiles(withSuffix: "swift").map(\.url.path)
            guard !files.isEmpty else { continue }
            let module = verb == "instrument" ? ["--module", target.moduleName] : []
            try run(
                trail, [verb, "--in-place"] + module + options + files,
                failure: "trail \(verb) failed for target \(target.name)")
        }
    }

    func run(_ trail: URL, _ arguments: [String], failure: String) throws {
        let process = Process()
        process.executableURL = trail
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw PluginFailure(failure) }
    }
}

struct PluginFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
