import CLibdw

#if canImport(Glibc)
import Glibc
#endif

/// Function names and file paths, interned: frames refer to them by number.
extension ELFImage {
    struct Name { var mangled: String, display: [UInt8]? = nil }
    struct File { var text: String, bytes: [UInt8] }

    func nameID(_ pointer: UnsafePointer<CChar>?) -> Int32 {
        guard let pointer, pointer.pointee != 0 else { return -1 }
        let key = Int(bitPattern: pointer)
        if let known = nameIDs[key] { return known }
        names.append(Name(mangled: String(cString: pointer)))
        nameIDs[key] = Int32(names.count - 1)
        return Int32(names.count - 1)
    }

    func fileID(_ path: String?) -> Int32 {
        guard let path else { return -1 }
        if let known = fileIDs[path] { return known }
        files.append(File(text: path, bytes: Array(path.utf8)))
        fileIDs[path] = Int32(files.count - 1)
        return Int32(files.count - 1)
    }
}
