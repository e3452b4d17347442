import Foundation
import TrailDriver
import TrailTestSupport

/// A package in a fresh folder: a manifest and Swift targets of one file each, for setup to read and edit.
struct ScratchPackage {
    let folder: String
    var manifest: String { folder + "/Package.swift" }

    init(_ name: String, manifest text: String, targets: [String] = ["A", "B"]) throws {
        folder = Paths.temporaryDirectory(name)
        for target in targets {
            try FileManager.default.createDirectory(
                atPath: folder + "/Sources/" + target, withIntermediateDirectories: true)
            try "func f() {}\n".write(
                toFile: folder + "/Sources/\(target)/\(target).swift", atomically: true, encoding: .utf8)
        }
        try text.write(toFile: manifest, atomically: true, encoding: .utf8)
    }

    func text() -> String { Transcript.read(manifest) }
    func bytes() throws -> [UInt8] { try FileIO.read(manifest) }
    func placeholder(_ target: String) -> String { folder + "/Sources/\(target)/" + PackageSetup.placeholder }
    func hasPlaceholder(_ target: String) -> Bool { FileManager.default.fileExists(atPath: placeholder(target)) }

    /// Plans and applies setup (or undo) as `trail setup` does.
    @discardableResult
    func setUp(_ targets: [String] = [], undo: Bool = false) throws -> PackageSetup.Plan {
        let plan = try PackageSetup.plan(package: folder, targets: targets, undo: undo)
        try plan.apply()
        return plan
    }

    /// Why setup refused (`path:line:column: error: ...`), or nil when it did not.
    func refusal(_ targets: [String] = [], undo: Bool = false) -> String? {
        do {
            _ = try PackageSetup.plan(package: folder, targets: targets, undo: undo)
            return nil
        } catch {
            return error.description
        }
    }
}
