import Foundation
import PackagePlugin

/// Compiles instrumented copies of a target's files in place of the originals. The client manifest, when
/// TRAIL=1, gives the target `sources: ["_Trail.swift"]`; every other Swift file then reaches this plugin as
/// an unclaimed file, and gets one build command of its own, so an edit re-instruments only that file.
@main
struct TrailPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        // A C target, or a Swift target whose files the build compiles itself, has nothing to instrument.
        guard let target = target as? SwiftSourceModuleTarget else { return [] }
        let files = target.sourceFiles.filter { $0.type == .unknown && $0.url.pathExtension == "swift" }
        guard !files.isEmpty else { return [] }
        let trail = try context.tool(named: "trail-rewrite").url
        let output = context.pluginWorkDirectoryURL
        // Copies trace in debug builds only, unless TRAIL_RELEASE=1 asks for traced release builds too.
        let environment = ProcessInfo.processInfo.environment
        let guardFlag = environment["TRAIL_RELEASE"] == "1" ? [] : ["--debug-only"]
        // TRAIL_VALUES=1: the copies record arguments and results too.
        let valuesFlag = environment["TRAIL_VALUES"] == "1" ? ["--values"] : []
        // A plugin cannot see the target's swiftSettings: experimental syntax the target enables is named here.
        // Handed on as it is: trail-rewrite reads the list (InstrumentSettings), the one place that parses it.
        let features = environment["TRAIL_EXPERIMENTAL_FEATURES"].map { ["TRAIL_EXPERIMENTAL_FEATURES": $0] } ?? [:]
        // What the whole target declares (Never functions, result builders), rewritten only when it changes.
        // A Swift file of comments: any other kind of output would become a resource of the target.
        // The modules it imports add their result builders and aliases of function types.
        let imported = target.recursiveTargetDependencies.compactMap { $0 as? SwiftSourceModuleTarget }
            .flatMap { $0.sourceFiles(withSuffix: "swift").map(\.url) }
        let declarations = output.appendingPathComponent("TrailDeclarations.swift")
        let scan = Command.buildCommand(
            displayName: "Trail scanning \(target.name)",
            executable: trail,
            arguments: ["scan", "--output", declarations.path] + imported.flatMap { ["--dependency", $0.path] }
                + files.map(\.url.path),
            environment: features,
            inputFiles: files.map(\.url) + imported,
            outputFiles: [declarations])
        return [scan]
            + files.map { file in
                let relative = String(file.url.path.dropFirst(target.directoryURL.path.count + 1))
                // `main.swift` must keep its name to hold top-level code; other copies get flat, unique names.
                let copy =
                    relative.hasSuffix("main.swift") && !relative.contains("/")
                    ? output.appendingPathComponent("main/main.swift")
                    : output.appendingPathComponent(
                        relative.replacingOccurrences(of: "/", with: "+")
                            .replacingOccurrences(of: ".swift", with: ".trail.swift"))
                return .buildCommand(
                    displayName: "Trail instrumenting \(relative)",
                    executable: trail,
                    arguments: ["instrument", "--module", target.moduleName, "--line-directive"] + guardFlag
                        + valuesFlag
                        + ["--declarations", declarations.path, "--output-file", copy.path, file.url.path],
                    environment: features,
                    inputFiles: [file.url, declarations],
                    outputFiles: [copy])
            }
    }
}
