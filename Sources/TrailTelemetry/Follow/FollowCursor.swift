import Foundation
import TrailFormat

/// What `--follow` delivered of each trace (or log file), kept in a JSON file written atomically after every
/// delivery. For a trace: the exit time of the last span sent and how many spans ending at that same tick were
/// sent (a restart skips exactly those); for a log file, the offset up to which its records were sent. And whether
/// it ended and was sent whole.
public struct FollowCursor {
    public struct Entry: Equatable {
        /// What tells this trace or file from another that took its path: "<wall-clock start>-<pid>" for a trace,
        /// "<device>:<inode>:<hash of the first line>" for a log file.
        public var identity: String
        public var position: UInt64 = 0
        public var sentAtPosition = 0
        public var done = false

        public init(identity: String, position: UInt64 = 0, sentAtPosition: Int = 0, done: Bool = false) {
            self.identity = identity
            self.position = position
            self.sentAtPosition = sentAtPosition
            self.done = done
        }
    }

    public let path: String
    public var entries: [String: Entry] = [:]
    /// The last save's failure, said once: a sidecar goes on (its folder may have been cleaned by hand and made
    /// again), at the price of repeating what was sent since the last save should it restart.
    var failure: String?

    /// The cursor saved at `path`, or an empty one where there is none.
    public init(path: String) throws {
        self.path = path
        guard let data = FileManager.default.contents(atPath: path) else { return }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let files = object["files"] as? [String: Any]
        else {
            throw FollowError("\(path): not a trail follow cursor (delete it to start from the beginning)")
        }
        for (file, value) in files {
            guard let value = value as? [String: Any], let identity = value["identity"] as? String else { continue }
            entries[file] = Entry(
                identity: identity, position: (value["position"] as? String).flatMap { UInt64($0) } ?? 0,
                sentAtPosition: value["sent_at_position"] as? Int ?? 0, done: value["done"] as? Bool ?? false)
        }
    }

    /// Saves, or says once why it cannot (and that it goes on).
    public mutating func saveOrSay(_ say: (String) -> Void) {
        do {
            try save()
            if failure != nil { say("trail export: the follow cursor \(path) is saved again") }
            failure = nil
        } catch {
            let reason = "\(error)"
            if reason != failure {
                say("trail export: \(reason); going on without it (a restart would send again what was sent since)")
            }
            failure = reason
        }
    }

    public func save() throws {
        var files: [String: Any] = [:]
        for (file, entry) in entries {
            files[file] = [
                "identity": entry.identity, "position": String(entry.position),
                "sent_at_position": entry.sentAtPosition, "done": entry.done,
            ]
        }
        let data = try JSONSerialization.data(
            withJSONObject: ["version": 2, "files": files], options: [.sortedKeys, .prettyPrinted])
        do { try AtomicFile.replace(path, with: Array(data) + [10]) } catch {
            throw FollowError("error: cannot save the follow cursor \(path): \(error)")
        }
    }
}
