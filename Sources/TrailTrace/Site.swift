import TrailFormat

/// A function, once per name across every file read.
public struct Site: Sendable, Hashable {
    public var name: String
    /// `Module/File.swift:12`, or empty when the site string has none.
    public var location: String

    /// "Name @ File.swift:12" -> name and location (`SiteName.split`: at the last separator).
    public init(_ text: String) {
        let (name, location) = SiteName.split(text)
        self.name = String(name)
        self.location = String(location)
    }
}
