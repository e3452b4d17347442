import Foundation

/// Generated sources are rewritten only when their text changes, so that an unchanged list keeps its
/// modification time and the compiler has nothing to redo.
public enum GeneratedFile {
    /// Writes `text` to `path` through a temporary file and a rename; returns whether it wrote.
    @discardableResult
    public static func write(_ text: String, to path: String) throws -> Bool {
        let data = Data(text.utf8)
        if FileManager.default.contents(atPath: path) == data { return false }
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url, options: .atomic)
        return true
    }
}
