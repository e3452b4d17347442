import Foundation

/// The kinds a resource is grouped by, from its extension: `Resources.Images`, `Resources.Data`,
/// `Resources.Other`.
public enum ResourceKind: String, CaseIterable, Sendable {
    case images = "Images"
    case data = "Data"
    case other = "Other"

    static let imageExtensions: Set<String> = [
        "png", "jpg", "jpeg", "gif", "svg", "webp", "heic", "bmp", "tif", "tiff", "ico",
    ]
    static let dataExtensions: Set<String> = [
        "json", "plist", "csv", "tsv", "yaml", "yml", "toml", "xml", "txt", "strings",
    ]

    public init(extension fileExtension: String) {
        let lowered = fileExtension.lowercased()
        self = Self.imageExtensions.contains(lowered) ? .images : Self.dataExtensions.contains(lowered) ? .data : .other
    }
}

/// One resource file: where it is, and the constant that names it.
public struct ResourceEntry: Equatable, Sendable {
    /// As given on the command line: what errors name.
    public var path: String
    /// Below the target's folder: what the bundle lookup and the documentation comment use.
    public var relativePath: String
    public var kind: ResourceKind
    public var constant: String

    public var fileName: String { String(relativePath.split(separator: "/").last ?? "") }
    public var baseName: String { Self.split(fileName).base }
    public var fileExtension: String { Self.split(fileName).extension }

    /// `a.b.png` → (`a.b`, `png`); `.hidden` and `README` have no extension.
    static func split(_ name: String) -> (base: String, extension: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        return (String(name[..<dot]), String(name[name.index(after: dot)...]))
    }
}

/// The file list command: every resource becomes a constant in its kind's enum, and every XML file gets the
/// enum its own command extends (`Resources.Main` for `Main.storyboard`, which `Storyboard` goes in).
public struct ResourceList {
    public var entries: [ResourceEntry]
    /// XML files and their enum names, `(Main, Storyboard)`.
    public var xmlNamespaces: [(entry: ResourceEntry, outer: String, inner: String)]

    /// Reads the list: `paths` named relative to `root` (the target's folder). Fails with every clash and
    /// unreadable file, each at its file, and at each `undeclared` file: one under `Resources/` that the
    /// manifest does not declare is not in the bundle, so its constant could not work.
    public init(paths: [String], root: String, xmlExtensions: Set<String>, undeclared: [String] = [])
        throws(ResourceErrors)
    {
        var errors = undeclared.sorted().map { path in
            ResourceError(
                path: path,
                message: "not among the target's resources, so not in its bundle: declare it "
                    + "in the manifest, e.g. resources: [.process(\"Resources\")]")
        }
        var files: [(path: String, relative: String)] = []
        for path in paths {
            switch Self.expand(path, root: root) {
            case .success(let found): files += found
            case .failure(let error): errors.append(error)
            }
        }
        files.sort { $0.relative < $1.relative }

        var entries: [ResourceEntry] = []
        var taken: [String: ResourceEntry] = [:]
        var namespaces: [(entry: ResourceEntry, outer: String, inner: String)] = []
        var takenNamespaces: [String: ResourceEntry] = [:]
        for file in files {
            let fileName = String(file.relative.split(separator: "/").last ?? "")
            let (base, fileExtension) = ResourceEntry.split(fileName)
            let kind = ResourceKind(extension: fileExtension)
            let entry = ResourceEntry(
                path: file.path, relativePath: file.relative, kind: kind,
                constant: SwiftName.constant(base))
            let qualified = "Resources.\(kind.rawValue).\(entry.constant)"
            if let first = taken[qualified] {
                errors.append(Self.clash(entry, first, qualified))
                continue
            }
            taken[qualified] = entry
            entries.append(entry)
            guard xmlExtensions.contains(fileExtension.lowercased()) else { continue }
            let (outer, inner) = Self.xmlEnumNames(fileName)
            if ResourceKind.allCases.contains(where: { $0.rawValue == outer }) || outer == "File" {
                errors.append(
                    ResourceError(
                        path: entry.path,
                        message: "'\(fileName)' would name its identifiers' enum "
                            + "Resources.\(outer), which the generated code already declares; rename the file"))
                continue
            }
            let qualifiedEnum = "Resources.\(outer).\(inner)"
            if let first = takenNamespaces[qualifiedEnum] {
                errors.append(Self.clash(entry, first, qualifiedEnum))
                continue
            }
            takenNamespaces[qualifiedEnum] = entry
            namespaces.append((entry, outer, inner))
        }
        guard errors.isEmpty else { throw ResourceErrors(errors: errors) }
        self.entries = entries
        xmlNamespaces = namespaces
    }

    /// The enums an XML file's identifiers go in: `Main.storyboard` → (`Main`, `Storyboard`).
    public static func xmlEnumNames(_ fileName: String) -> (outer: String, inner: String) {
        let (base, fileExtension) = ResourceEntry.split(fileName)
        return (SwiftName.type(base), SwiftName.type(fileExtension.isEmpty ? "xml" : fileExtension))
    }

    static func clash(_ second: ResourceEntry, _ first: ResourceEntry, _ name: String) -> ResourceError {
        ResourceError(
            path: second.path,
            message: "'\(second.relativePath)' maps to \(name), as '\(first.relativePath)' "
                + "(\(first.path)) does; rename one of them")
    }

    /// A file, or every file in a copied folder; relative to `root` when below it.
    static func expand(_ path: String, root: String) -> Result<[(path: String, relative: String)], ResourceError> {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return .failure(ResourceError(path: path, message: "cannot read the resource: no such file"))
        }
        let prefix = root.hasSuffix("/") ? root : root + "/"
        let relative = path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
        guard isDirectory.boolValue else {
            guard manager.isReadableFile(atPath: path) else {
                return .failure(ResourceError(path: path, message: "cannot read the resource: permission denied"))
            }
            return .success([(path, relative)])
        }
        guard let names = manager.enumerator(atPath: path) else {
            return .failure(ResourceError(path: path, message: "cannot read the folder"))
        }
        var found: [(path: String, relative: String)] = []
        while let name = names.nextObject() as? String {
            var nested: ObjCBool = false
            if manager.fileExists(atPath: path + "/" + name, isDirectory: &nested), !nested.boolValue {
                found.append((path + "/" + name, relative + "/" + name))
            }
        }
        return .success(found)
    }
}
