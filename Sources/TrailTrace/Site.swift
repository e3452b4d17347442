import TrailFormat

/// A function, once per name across every file read.
public struct Site: Sendable, Hashable {
    public var name: String
    /// `Module/File.swift:12`, or empty when the site string has none.
    public var location: String

    /// "Name @ File.swift:12" -> name and location; the split is at the last " @ ".
    public init(_ text: String) {
        if let range = text.range(of: " @ ", options: .backwards) {
            name = String(text[..<range.lowerBound])
            location = String(text[range.upperBound...])
        } else {
            name = text
            location = ""
        }
    }
}
