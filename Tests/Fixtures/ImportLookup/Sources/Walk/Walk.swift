import CWalk

/// An entry as fts hands it out, named the way SwiftNIO names it.
typealias EntryPointer = UnsafeMutablePointer<FTSENT>

/// Counts the regular files under `root` with fts.
public func countFiles(under root: String) -> Int {
    var count = 0
    root.withCString { path in
        let paths = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: 2)
        defer { paths.deallocate() }
        paths[0] = strdup(path)
        paths[1] = nil
        defer { free(paths[0]) }
        guard let tree = fts_open(paths, FTS_PHYSICAL | FTS_NOCHDIR, nil) else { return }
        defer { fts_close(tree) }
        while let entry = fts_read(tree) {
            if isRegularFile(entry) { count += 1 }
        }
    }
    return count
}

/// Reads FTSENT's fields, which MemberImportVisibility checks against the module that declares them.
func isRegularFile(_ entry: EntryPointer) -> Bool {
    entry.pointee.fts_errno == 0 && cwalk_is_file(entry.pointee.fts_info) != 0
}
