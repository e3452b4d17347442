/// Function names and file paths, interned: frames refer to them by number, and output copies their bytes.
/// Names are demangled on first output. (Dictionaries here are keyed by String only: a key type's first use
/// costs a scan of the runtime's conformance records; Int keys go in an `IntMap`.)
struct InternedNames {
    /// A name's C string (which lives as long as the file's session), its text made only when asked for: a batch
    /// interns thousands.
    struct Name {
        var pointer: UnsafePointer<CChar>
        var display: [UInt8]? = nil
        var queued = false
        var mangled: String { String(cString: pointer) }
    }
    struct File { var text: String, bytes: [UInt8] }

    private(set) var names: [Name] = []
    private var nameIDs = IntMap()
    private(set) var files: [File] = []
    private var fileIDs: [String: Int32] = [:]

    /// A name by the address of its C string (libdw and libelf hand out each string once).
    mutating func nameID(_ pointer: UnsafePointer<CChar>?) -> Int32 {
        guard let pointer, pointer.pointee != 0 else { return -1 }
        let key = Int(bitPattern: pointer)
        if let known = nameIDs[key] { return known }
        names.append(Name(pointer: pointer))
        nameIDs[key] = Int32(names.count - 1)
        return Int32(names.count - 1)
    }

    mutating func fileID(_ path: String?) -> Int32 {
        guard let path else { return -1 }
        if let known = fileIDs[path] { return known }
        files.append(File(text: path, bytes: Array(path.utf8)))
        fileIDs[path] = Int32(files.count - 1)
        return Int32(files.count - 1)
    }

    /// A name's demangled bytes, for address-mode output.
    mutating func display(_ id: Int32) -> [UInt8] {
        if let known = names[Int(id)].display { return known }
        let bytes = Demangler.shared.demangleOnce(names[Int(id)].pointer)
        names[Int(id)].display = bytes
        return bytes
    }

    /// Whether a name still needs demangling and is not queued for it yet; marks it queued.
    mutating func queue(_ id: Int32) -> Bool {
        guard names[Int(id)].display == nil, !names[Int(id)].queued else { return false }
        names[Int(id)].queued = true
        return true
    }

    /// A demangled name from a `DemangleQueue`.
    mutating func setDisplay(_ id: Int32, _ bytes: [UInt8]) { names[Int(id)].display = bytes }

    /// Joins a relative path to the compile directory and collapses `//`, as llvm-symbolizer prints them.
    static func normalize(_ path: String, directory: String?) -> String {
        // Most paths are absolute already, with no `//`: those are returned as they are, unread but for the scan.
        var path = path
        let plain = path.withUTF8 { utf8 in
            utf8.first == 47 && !zip(utf8, utf8.dropFirst()).contains { $0 == 47 && $1 == 47 }
        }
        if plain { return path }
        var bytes = Array(path.utf8)
        // relative, not `<compiler-generated>`
        if bytes.first != 47, let directory, !directory.isEmpty, bytes.first != 60 {
            bytes = Array(directory.utf8) + [47] + bytes
        }
        // Collapse runs of slashes.
        var kept = 0
        for index in bytes.indices where !(bytes[index] == 47 && kept > 0 && bytes[kept - 1] == 47) {
            bytes[kept] = bytes[index]
            kept += 1
        }
        return kept == path.utf8.count && bytes.first == 47 ? path : String(decoding: bytes[..<kept], as: UTF8.self)
    }
}
