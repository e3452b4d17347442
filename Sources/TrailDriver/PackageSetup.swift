import Foundation
import SwiftParser
import SwiftSyntax
import TrailRewriter

/// `trail setup`: gives a package's manifest the TRAIL=1 pattern of Docs/tracing.md ("Tracing a package") and each traced
/// target its placeholder `_Trail.swift`; `--undo` removes exactly that. The manifest is edited as text at places
/// found by parsing it, so every other byte stays; a manifest that cannot be read that way is refused, with the
/// lines to add by hand.
public enum PackageSetup {
    public static let placeholder = "_Trail.swift"
    static let tracedDeclaration = #"let traced = Context.environment["TRAIL"] == "1""#
    static let tracedInsertion =
        "\n\n// Added by `trail setup`: `TRAIL=1 swift build --scratch-path .build/trail` traces this package.\n"
        + tracedDeclaration
    /// The placeholder's last line says what setup added to the target's arguments, for `--undo`.
    static let recordPrefix = "// trail setup added: "

    /// What setup (or undo) would do; `apply` does it.
    public struct Plan: Sendable {
        public var manifest: String
        public var original: [UInt8]
        public var edited: [UInt8]
        /// Placeholders to write (path, text) and to remove.
        public var created: [(path: String, text: String)] = []
        public var removed: [String] = []
        /// Targets changed, and targets chosen that needed nothing.
        public var changed: [String] = []
        public var unchanged: [String] = []
        /// What setup left alone that a user would expect it to do, as `path:line:column: note: ...` lines.
        public var notes: [String] = []

        public var isEmpty: Bool { original == edited && created.isEmpty && removed.isEmpty }

        /// A unified diff of the manifest and the placeholders.
        public func diff() -> String {
            var out = UnifiedDiff.make(old: original, new: edited, path: manifest)
            for file in created {
                let lines = file.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                out +=
                    "--- /dev/null\n+++ b/\(file.path)\n@@ -0,0 +1,\(lines.count) @@\n"
                    + lines.map { "+\($0)\n" }.joined()
            }
            for path in removed {
                let text = String(decoding: (try? FileIO.read(path)) ?? [], as: UTF8.self)
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                out +=
                    "--- a/\(path)\n+++ /dev/null\n@@ -1,\(lines.count) +0,0 @@\n" + lines.map { "-\($0)\n" }.joined()
            }
            return out
        }

        /// Placeholders first, so that a manifest naming them never lacks them; the manifest through a temporary
        /// file and a rename.
        public func apply() throws(SourceError) {
            for file in created { try FileIO.writeAtomically(Array(file.text.utf8), to: file.path) }
            if edited != original { try FileIO.writeAtomically(edited, to: manifest) }
            for path in removed where unlink(path) != 0 && errno != ENOENT {
                throw SourceError(path: path, message: "cannot remove: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Plans setup (or, with `undo`, its removal) for the targets named, or for every regular and executable
    /// Swift target (with `undo`: every target setup changed).
    public static func plan(package: String, targets names: [String], undo: Bool) throws(SourceError) -> Plan {
        let path = (package.hasSuffix("/") ? String(package.dropLast()) : package) + "/Package.swift"
        let bytes = try FileIO.read(path)
        let manifest = try Manifest(bytes, path: path, undo: undo)
        var plan = Plan(manifest: path, original: bytes, edited: bytes)
        plan.notes = manifest.notes
        var edits: [Edit] = []
        for target in try manifest.chosen(names, undo: undo) {
            let placeholder = target.folder + "/" + placeholder
            if undo {
                guard let record = Self.record(at: placeholder) else {
                    guard names.isEmpty else {
                        throw manifest.refusal(target.call, "target '\(target.name)' was not set up by 'trail setup'")
                    }
                    continue
                }
                edits += try manifest.removals(target, record: record)
                plan.removed.append(placeholder)
                plan.changed.append(target.name)
            } else if manifest.isSetUp(target) {
                plan.unchanged.append(target.name)
            } else {
                guard !FileManager.default.fileExists(atPath: placeholder) else {
                    throw manifest.refusal(target.call, "target '\(target.name)' already has \(placeholder)")
                }
                let (insertions, added) = try manifest.insertions(target)
                edits += insertions
                plan.created.append((placeholder, Self.placeholderText(added: added)))
                plan.changed.append(target.name)
            }
        }
        guard !plan.changed.isEmpty else { return plan }
        var text = Edit.apply(edits, to: bytes)
        // The `traced` declaration: added when missing; removed when setup added it and nothing uses it any more.
        let rest = try Manifest(text, path: path, undo: undo)
        if !undo, rest.traced == nil {
            text = Edit.apply([Edit(offset: rest.afterImports, text: tracedInsertion)], to: text)
        } else if undo, rest.tracedUses == 0, text.count >= rest.afterImports + tracedInsertion.utf8.count,
            Array(text[rest.afterImports ..< rest.afterImports + tracedInsertion.utf8.count])
                == Array(tracedInsertion.utf8)
        {
            text.removeSubrange(rest.afterImports ..< rest.afterImports + tracedInsertion.utf8.count)
        }
        plan.edited = text
        return plan
    }

    static func placeholderText(added: [String]) -> String {
        """
        // With TRAIL=1 this file is the target's only source: the Trail plugin compiles instrumented copies of the
        // others in its place. Without it, it is compiled with them and does nothing.
        \(recordPrefix)\(added.joined(separator: ", ")) (removed by 'trail setup --undo')

        """
    }

    /// What setup added to the target, from its placeholder; nil when setup did not write it.
    static func record(at path: String) -> [String]? {
        guard let bytes = try? FileIO.read(path) else { return nil }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix(recordPrefix) {
            let items = line.dropFirst(recordPrefix.count).prefix { $0 != "(" }
            return items.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        return nil
    }

    /// The lines a refused manifest needs, by hand.
    static func byHand(_ identity: String, undo: Bool) -> String {
        if undo {
            return "\nRemove by hand what 'trail setup' added: the `traced` declaration, and in each target the "
                + "`traced ? [.product(name: \"Trail\", ...)] : []` dependency, `sources:` and `plugins:`, and its _Trail.swift."
        }
        return """

            Add by hand, as Docs/tracing.md ("Tracing a package") shows: after the imports
                \(tracedDeclaration)
            and in each target to trace
                dependencies: [<its own, if any>] + (traced ? [.product(name: "Trail", package: "\(identity)")] : []),
                sources: traced ? ["\(placeholder)"] : nil,
                plugins: traced ? [.plugin(name: "TrailPlugin", package: "\(identity)")] : []
            with a file \(placeholder) holding a comment in the target's folder.
            """
    }
}
