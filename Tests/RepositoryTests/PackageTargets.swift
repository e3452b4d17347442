import Foundation
import TrailTestSupport

/// The package's targets as SwiftPM reads Package.swift (`swift package dump-package`), with their folders and
/// the modules their Swift files import.
struct PackageTargets {
    struct Target {
        var name: String
        var type: String
        var folder: String
        /// Targets of this package it depends on, by name.
        var targets: [String]
        /// Products of other packages it depends on.
        var products: [String]
    }

    let all: [String: Target]

    /// Reads the manifest with a scratch folder of its own: `swift test` holds the package's `.build`.
    static let current: PackageTargets = {
        let scratch = Paths.temporaryDirectory("dump-package")
        let result = try? run(
            "swift", ["package", "--package-path", Paths.packageRoot, "--scratch-path", scratch, "dump-package"],
            check: true)
        let json = (try? JSONSerialization.jsonObject(with: Data((result?.stdout ?? "").utf8))) as? [String: Any]
        var all: [String: Target] = [:]
        for target in json?["targets"] as? [[String: Any]] ?? [] {
            let name = target["name"] as? String ?? ""
            let type = target["type"] as? String ?? ""
            let root = ["test": "Tests", "plugin": "Plugins"][type] ?? "Sources"
            var dependencies = Target(
                name: name, type: type,
                folder: Paths.packageRoot + "/" + (target["path"] as? String ?? root + "/" + name),
                targets: [], products: [])
            for dependency in target["dependencies"] as? [[String: [Any]]] ?? [] {
                for (kind, fields) in dependency {
                    guard let first = fields.first as? String else { continue }
                    if kind == "product" {
                        dependencies.products.append(first)
                    } else {
                        dependencies.targets.append(first)
                    }
                }
            }
            all[name] = dependencies
        }
        return PackageTargets(all: all)
    }()

    /// `name` and every target it depends on, directly or not.
    func closure(of name: String) -> [Target] {
        var seen: [String] = []
        var queue = [name]
        while let next = queue.popLast() {
            guard !seen.contains(next), let target = all[next] else { continue }
            seen.append(next)
            queue += target.targets
        }
        return seen.compactMap { all[$0] }
    }

    /// The modules a folder's Swift files import, by any form of import declaration.
    static func imports(in folder: String) -> Set<String> {
        var modules: Set<String> = []
        let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
        let pattern = try! NSRegularExpression(
            pattern: #"^(?:@\w+(?:\([^)]*\))?\s+)*(?:public |internal |private |package )?import "#
                + #"(?:enum |struct |class |func |var |protocol |typealias )?(\w+)"#,
            options: .anchorsMatchLines)
        for file in files where file.hasSuffix(".swift") {
            let text = Transcript.read(folder + "/" + file)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                modules.insert((text as NSString).substring(with: match.range(at: 1)))
            }
        }
        return modules
    }
}
