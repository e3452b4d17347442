/// A site string, the one literal each trace call carries and a NAMES chunk holds:
/// `Module.Type.method(x:) @ Module/File.swift:12`. Made by the rewriter and TrailTracing's span sites, split by
/// the readers (TrailTrace's `Site`) and, in C, by `trail_site_name` (`TRAIL_SITE_SEPARATOR` in trail_format.h).
public enum SiteName {
    /// Between the name and where it is; a name may hold it too, so a site splits at the last one.
    public static var separator: String { " @ " }

    public static func format(name: String, file: String, line: some BinaryInteger) -> String {
        name + separator + file + ":" + String(line)
    }

    /// `"Name @ File.swift:12"` -> the name and the location (empty when there is no separator).
    public static func split(_ text: String) -> (name: Substring, location: Substring) {
        let bytes = text.utf8
        let mark = separator.utf8
        var end = bytes.endIndex
        while let start = bytes.index(end, offsetBy: -mark.count, limitedBy: bytes.startIndex) {
            if bytes[start ..< end].elementsEqual(mark) { return (text[..<start], text[end...]) }
            end = bytes.index(before: end)
        }
        return (text[...], "")
    }
}
