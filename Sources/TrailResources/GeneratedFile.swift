import Foundation
import TrailFormat

/// Generated sources are rewritten only when their text changes, so that an unchanged list keeps its
/// modification time and the compiler has nothing to redo.
public enum GeneratedFile {
    /// Writes `text` to `path` through a temporary file and a rename; returns whether it wrote.
    @discardableResult
    public static func write(_ text: String, to path: String) throws -> Bool {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        return try AtomicFile.replaceIfChanged(path, with: Array(text.utf8))
    }
}
