import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory trail instrument|strip [--target NAME]...`:
/// runs the `trail` CLI in place over the package's own Swift targets.
@main
struct TrailCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let names = extractor.extractOption(named: "target")
        guard let verb = extractor.remainingArguments.first, ["instrument", "strip"].contains(verb) else {
            throw PluginFailure("usage: swift package trail instrument|strip [--target NAME]... [trail options]")
        }
        let options = Array(extractor.remainingArguments.dropFirst())
        let targets = try names.isEmpty ? context.package.targets : context.package.targets(named: names)
        let trail = try context.tool(named: "trail").url
        for case let target as SourceModuleTarget in targets where target.name != "Trail" {
            let files = target.sourceFiles(withSuffix: "swift").map(\.url.path)
            guard !files.isEmpty else { continue }
            let process = Process()
            process.executableURL = trail
            let module = verb == "instrument" ? ["--module", target.moduleName] : []
            process.arguments = [verb, "--in-place"] + module + options + files
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw PluginFailure("trail \(verb) failed for target \(target.name)")
            }
        }
    }
}

struct PluginFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
