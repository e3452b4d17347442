import Foundation
import PackagePlugin

/// Compiler-checked resource names: one command writes a constant per resource file of the target, and each
/// XML file gets a command of its own for its identifiers, so that editing one layout reruns only its command.
@main
struct TrailResourcesPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let root = target.directoryURL.path
        let resources = target.sourceFiles.filter { $0.type == .resource }.map(\.url)
        // Files under Resources/ that the manifest does not declare are not in the bundle: `trail resources`
        // names each, rather than the build failing later on a missing Bundle.module.
        let undeclared = target.sourceFiles
            .filter { $0.type == .unknown && $0.url.path.hasPrefix(root + "/Resources/") }.map(\.url)
        guard !resources.isEmpty || !undeclared.isEmpty else { return [] }
        let trail = try context.tool(named: "trail-resources").url
        let output = context.pluginWorkDirectoryURL
        // The manifest cannot configure a plugin: these two settings come from the environment.
        let environment = ProcessInfo.processInfo.environment
        let attributes = (environment["TRAIL_RESOURCES_ATTRIBUTES"] ?? "").split(separator: ",")
            .flatMap { ["--attribute", String($0)] }
        let xmlExtensions = (environment["TRAIL_RESOURCES_XML_EXTENSIONS"] ?? "storyboard,xib,xml")
            .split(separator: ",").map { $0.lowercased() }

        // The list depends on file names, not contents: its inputs are the folders holding the files (a folder's
        // time changes when a file in it is added, removed or renamed), so editing one XML file reruns only that
        // file's command.
        let folders = Set((resources + undeclared).map { $0.deletingLastPathComponent().path }).sorted()
            .map { URL(fileURLWithPath: $0) }
        let list = output.appendingPathComponent("TrailResources.swift")
        let listCommand = Command.buildCommand(
            displayName: "Trail resources of \(target.name)",
            executable: trail,
            arguments: ["--root", root, "--output", list.path]
                + xmlExtensions.flatMap { ["--xml-extension", $0] }
                + undeclared.flatMap { ["--undeclared", $0.path] } + resources.map(\.path),
            inputFiles: folders,
            outputFiles: [list])
        let xmlFiles = resources.filter { xmlExtensions.contains($0.pathExtension.lowercased()) }
        return [listCommand]
            + xmlFiles.map { file in
                let relative = String(file.path.dropFirst(root.count + 1))
                let generated = output.appendingPathComponent(
                    "TrailResources+" + relative.replacingOccurrences(of: "/", with: "+") + ".swift")
                return .buildCommand(
                    displayName: "Trail resources in \(relative)",
                    executable: trail,
                    arguments: ["--xml", "--root", root, "--output", generated.path] + attributes + [file.path],
                    inputFiles: [file],
                    outputFiles: [generated])
            }
    }
}
