import Foundation
import Testing
import TrailTestSupport

/// Docs/architecture.md stays true to Package.swift and the tree: every target has its row (or, for test and
/// support targets, a mention), every import and dependency is in its row, what a row says a target never
/// depends on it does not reach, even through another target, and every file the doc names exists.
@Suite struct ArchitectureDocTests {
    /// Modules any target may use without saying so.
    static let everywhere: Set<String> = ["Glibc", "Musl", "Dispatch", "Synchronization", "Darwin"]

    /// What the doc's short names stand for: SwiftSyntax is the toolchain's family of modules, imported without
    /// a dependency in Package.swift; libdw and zlib are reached through their module maps.
    static let meaning: [String: Set<String>] = [
        "SwiftSyntax": [
            "SwiftSyntax", "SwiftParser", "SwiftParserDiagnostics", "SwiftDiagnostics", "SwiftBasicFormat",
        ],
        "libdw": ["CLibdw"], "zlib": ["CZlib"],
    ]

    let doc = ArchitectureDoc()
    let package = PackageTargets.current

    @Test func everyTargetHasARowAndEveryRowATarget() throws {
        try #require(package.all.count > 20, "swift package dump-package gave no targets")
        for target in package.all.values.sorted(by: { $0.name < $1.name }) {
            let relative = String(target.folder.dropFirst(Paths.packageRoot.count + 1))
            if relative.hasPrefix("Sources/") || relative.hasPrefix("Plugins/") {
                #expect(doc.row(of: target.name) != nil, "Docs/architecture.md has no row for \(relative)")
            } else {
                #expect(
                    ArchitectureDoc.quoted(doc.text).contains(target.name),
                    "Docs/architecture.md does not name the target \(target.name) (\(relative))")
            }
        }
        for row in doc.rows {
            for name in row.targets {
                #expect(package.all[name] != nil, "Docs/architecture.md has a row for \(name), which is no target")
            }
        }
    }

    @Test func everyImportAndDependencyIsNamedInItsRow() {
        for row in doc.rows {
            for name in row.targets {
                guard let target = package.all[name] else { continue }
                let imports = PackageTargets.imports(in: target.folder).subtracting(Self.everywhere)
                for module in (imports.union(target.targets).union(target.products)).sorted()
                where !row.allowed.contains(module) {
                    Issue.record("Docs/architecture.md: \(name) uses \(module), which its row does not name")
                }
            }
        }
    }

    /// A row's "never X" and "no X" hold for the target and for everything it depends on.
    @Test func whatARowSaysATargetNeverUsesItDoesNotReach() {
        var checked = 0
        for row in doc.rows where !row.forbidden.isEmpty {
            let forbidden = row.forbidden.reduce(into: Set<String>()) { $0.formUnion(Self.meaning[$1] ?? [$1]) }
            for name in row.targets {
                for target in package.closure(of: name) {
                    checked += 1
                    let used = PackageTargets.imports(in: target.folder).union(target.targets).union(target.products)
                    for module in used.intersection(forbidden).sorted() {
                        let via = target.name == name ? "" : " through \(target.name)"
                        Issue.record("Docs/architecture.md says \(name) never uses \(module), but it does\(via)")
                    }
                }
            }
        }
        #expect(checked > 10, "the doc's never rows were not found")
    }

    @Test func everyFileTheDocNamesExists() {
        // The tree as git sees it: hidden folders (.build, .git, .swiftpm) are passed over, not walked.
        var tree: [String] = []
        let walker = FileManager.default.enumerator(atPath: Paths.packageRoot)
        while let path = walker?.nextObject() as? String {
            if (path as NSString).lastPathComponent.hasPrefix(".") {
                walker?.skipDescendants()
            } else {
                tree.append(path)
            }
        }
        let paths = Set(tree)
        let basenames = Set(tree.map { ($0 as NSString).lastPathComponent })
        for name in Set(doc.fileNames).sorted() {
            let trimmed = name.hasSuffix("/") ? String(name.dropLast()) : name
            let found =
                trimmed.contains("/")
                ? paths.contains(trimmed) || tree.contains { $0.hasSuffix("/" + trimmed) }
                : basenames.contains(trimmed)
            #expect(found, "Docs/architecture.md names \(name), which is not in the repository")
        }
    }

    /// A file a row names is in that row's target, or in one the row names (a C twin, say).
    @Test func aRowsFilesAreInItsTargetOrOneItNames() {
        for row in doc.rows {
            let named = row.targets + ArchitectureDoc.quoted(row.holds + row.dependsOn)
            let folders = named.compactMap { package.all[$0]?.folder }
            for file in ArchitectureDoc.quoted(row.holds) where ArchitectureDoc.isFileName(file) {
                let found = folders.contains { folder in
                    FileManager.default.subpaths(atPath: folder)?.contains {
                        $0 == file || $0.hasSuffix("/" + file)
                    } == true
                }
                #expect(found, "\(row.targets.joined(separator: ", ")): \(file) is in none of \(named)")
            }
        }
    }

    /// The runtime's C files are few and each has one job: every one of them is named.
    @Test func everyFileOfTheCTargetsIsNamed() throws {
        let quoted = Set(ArchitectureDoc.quoted(doc.text))
        for target in ["CTrailShim", "CTrailHooks"] {
            let folder = try #require(package.all[target]).folder
            for file in FileManager.default.subpaths(atPath: folder) ?? []
            where file.hasSuffix(".c") || file.hasSuffix(".h") {
                #expect(
                    quoted.contains(file) || quoted.contains((file as NSString).lastPathComponent),
                    "Docs/architecture.md does not name \(target)'s \(file)")
            }
        }
    }
}
