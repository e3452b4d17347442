/// The two commands of the build plugin, from paths to Swift source.
public enum ResourceGeneration {
    public static let defaultXMLExtensions: Set<String> = ["storyboard", "xib", "xml"]

    /// The file list's source.
    public static func listSource(
        _ paths: [String], root: String, xmlExtensions: Set<String>,
        undeclared: [String] = []
    ) throws(ResourceErrors) -> String {
        try ResourceList(paths: paths, root: root, xmlExtensions: xmlExtensions, undeclared: undeclared).source
    }

    /// One XML file's source.
    public static func xmlSource(_ path: String, root: String, attributes: [String]) throws(ResourceErrors) -> String {
        let identifiers: [XMLIdentifier]
        do {
            identifiers = try XMLIdentifiers.read(path, attributes: Set(attributes))
        } catch {
            throw ResourceErrors(errors: [error])
        }
        let prefix = root.hasSuffix("/") ? root : root + "/"
        let relative = path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
        return try XMLConstants.source(path: path, relativePath: relative, identifiers: identifiers)
    }
}
