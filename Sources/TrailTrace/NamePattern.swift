import Foundation

/// Shell-style wildcards (`*`, `?`) on function names.
public struct NamePattern: Sendable {
    let patterns: [String]

    public init(_ text: String) {
        patterns = text.split(separator: ",").map(String.init)
    }

    public func matches(_ name: String) -> Bool {
        patterns.contains { fnmatch($0, name, 0) == 0 }
    }
}
