import Foundation
import TrailRewriter

/// The copy resolves its dependencies as the package last did, with no network: SwiftPM would clone every
/// remote dependency again into the copy's scratch path, and the copy's manifest (with swift-trail added) makes
/// it resolve again, which fetches updates. So the package's resolved repositories, checkouts, registry
/// downloads and artifacts are copied into the copy's scratch path, again whenever the package resolves anew,
/// and SwiftPM runs with `--force-resolved-versions` (`resolutionArguments`): the versions of the package's own
/// Package.resolved (copied whenever its content changes), fetched only if the copied repositories lack them.
extension ShadowPackage {
    /// SwiftPM's state for resolved dependencies, in a scratch path.
    static let resolvedState = ["repositories", "checkouts", "registry", "artifacts", "workspace-state.json"]
    /// The package's `workspace-state.json` when its state was last copied.
    static let seededState = "resolved"

    /// Copies the package's resolved dependencies when the copy has none, or the package resolved since.
    /// Returns whether the copy's dependencies came from the package (so SwiftPM needs no update).
    @discardableResult
    public func seedResolution() throws(SourceError) -> Bool {
        let scratch = original + "/.build"
        guard let state = try? FileIO.read(scratch + "/workspace-state.json"),
            access(scratch + "/repositories", F_OK) == 0
        else { return false }
        let seeded = root + "/" + Self.seededState
        if let previous = try? FileIO.read(seeded), previous == state, access(self.scratch + "/repositories", F_OK) == 0
        {
            return true
        }
        try FileIO.makeParents(of: self.scratch + "/x")
        for name in Self.resolvedState {
            try? FileManager.default.removeItem(atPath: self.scratch + "/" + name)
            guard access(scratch + "/" + name, F_OK) == 0 else { continue }
            do {
                try FileManager.default.copyItem(atPath: scratch + "/" + name, toPath: self.scratch + "/" + name)
            } catch {
                throw SourceError(
                    path: scratch + "/" + name,
                    message: "cannot copy the resolved dependencies: \(error.localizedDescription)")
            }
        }
        try FileIO.writeAtomically(state, to: seeded)
        return true
    }

    /// What SwiftPM runs with on the copy: the package's pinned versions, no update from remotes.
    public var resolutionArguments: [String] {
        access(scratch + "/repositories", F_OK) == 0 && access(root + "/" + Self.seededState, F_OK) == 0
            && access(copy + "/Package.resolved", F_OK) == 0 ? ["--force-resolved-versions"] : []
    }
}
