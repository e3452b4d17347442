import Foundation
import Testing
import TrailTestSupport

/// Docs/architecture.md's target table stays true: every folder in Sources has a row, and every module a target
/// imports is named in that row's "may depend on" column.
@Suite struct ArchitectureDocTests {
    /// Modules any target may use without saying so.
    static let everywhere: Set<String> = ["Glibc", "Musl", "Dispatch", "Synchronization", "Darwin"]

    /// Each target named in the table's first column, with the row's last column.
    static func rows() -> [String: String] {
        var rows: [String: String] = [:]
        let doc = Transcript.read(Paths.packageRoot + "/Docs/architecture.md")
        for line in doc.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 4 else { continue }
            for name in cells[1].split(separator: "`", omittingEmptySubsequences: false).enumerated().filter({
                $0.offset % 2 == 1
            }).map(\.element) {
                rows[String(name)] = cells[cells.count - 2]
            }
        }
        return rows
    }

    /// The modules a target's Swift files import, by any form of import declaration.
    static func imports(ofTarget directory: String) -> Set<String> {
        var modules: Set<String> = []
        let files = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []
        let pattern = try! NSRegularExpression(
            pattern: #"^(?:@\w+(?:\([^)]*\))?\s+)*(?:public |internal |private |package )?import "#
                + #"(?:enum |struct |class |func |var |protocol |typealias )?(\w+)"#,
            options: .anchorsMatchLines)
        for file in files where file.hasSuffix(".swift") {
            let text = Transcript.read(directory + "/" + file)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                modules.insert((text as NSString).substring(with: match.range(at: 1)))
            }
        }
        return modules
    }

    @Test func everyTargetAndEveryImportIsInTheTable() throws {
        let rows = Self.rows()
        let sources = Paths.packageRoot + "/Sources"
        let targets = try FileManager.default.contentsOfDirectory(atPath: sources).sorted()
        #expect(targets.count > 15)
        for target in targets {
            guard let row = rows[target] else {
                Issue.record("Docs/architecture.md has no row for Sources/\(target)")
                continue
            }
            for module in Self.imports(ofTarget: sources + "/" + target).subtracting(Self.everywhere).sorted()
            where !row.contains(module) {
                Issue.record("Docs/architecture.md: \(target) imports \(module), which its row does not name")
            }
        }
    }
}
