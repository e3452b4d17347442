import Foundation
import TrailTestSupport

/// Docs/architecture.md, read as the tests check it: the target table's rows, and the files the text names.
struct ArchitectureDoc {
    struct Row {
        var targets: [String]
        var holds: String
        var dependsOn: String

        /// Names the row allows: every word of its last column outside a "never …" or "no …" clause.
        var allowed: Set<String> { ArchitectureDoc.words(Self.removingForbidden(dependsOn)) }

        /// Names the row forbids: those after "never" (to the end of its clause) and after each "no".
        var forbidden: Set<String> {
            var names: Set<String> = []
            let text = dependsOn.replacingOccurrences(of: "`", with: "")
            if let never = text.range(of: "never ") {
                let clause = text[never.upperBound...].prefix { $0 != ";" && $0 != ")" }
                names.formUnion(ArchitectureDoc.words(String(clause)).subtracting(["or", "and"]))
            }
            let no = try! NSRegularExpression(pattern: #"\bno ([\w-]+)"#)
            for match in no.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                names.insert((text as NSString).substring(with: match.range(at: 1)))
            }
            return names
        }

        static func removingForbidden(_ text: String) -> String {
            var kept = text
            if let never = kept.range(of: "never ") { kept = String(kept[..<never.lowerBound]) }
            return kept.replacingOccurrences(of: #"\bno [`\w-]+"#, with: "", options: .regularExpression)
        }
    }

    let text: String
    let rows: [Row]

    static let path = Paths.packageRoot + "/Docs/architecture.md"

    init() {
        text = Transcript.read(Self.path)
        var rows: [Row] = []
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = Self.cells(line)
            // The target table's rows have three columns: target, what it holds, what it may depend on.
            guard cells.count == 5 else { continue }
            rows.append(Row(targets: Self.quoted(cells[1]), holds: cells[2], dependsOn: cells[3]))
        }
        self.rows = rows
    }

    func row(of target: String) -> Row? { rows.first { $0.targets.contains(target) } }

    /// A table line's cells, split at each `|` outside `quotes` (an operator such as `~>|` is no border).
    static func cells(_ line: some StringProtocol) -> [String] {
        var cells = [""]
        var quoted = false
        for character in line {
            if character == "`" { quoted.toggle() }
            if character == "|" && !quoted {
                cells.append("")
            } else {
                cells[cells.count - 1].append(character)
            }
        }
        return cells.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The `quoted` names of a text, in order.
    static func quoted(_ text: some StringProtocol) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }
            .map { String($0.element) }
    }

    /// A text's words: names of modules, targets and products.
    static func words(_ text: String) -> Set<String> {
        Set(text.split { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }.map(String.init))
    }

    /// A file's name: one with the extension of a source, script or doc.
    static func isFileName(_ name: String) -> Bool {
        name.range(of: #"^[\w./+-]+\.(swift|c|h|py|md|modulemap)$"#, options: .regularExpression) != nil
    }

    /// The quoted names that are files or folders of the repository: a file's name, or a path from a top folder.
    var fileNames: [String] {
        let roots = ["Sources/", "Tests/", "Plugins/", "Docs/", "Benchmarks/", "Samples/", "Scripts/"]
        return Self.quoted(text).filter { name in roots.contains { name.hasPrefix($0) } || Self.isFileName(name) }
    }
}
