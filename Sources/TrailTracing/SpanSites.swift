#if TrailTracing
import Glibc
import Synchronization
import TrailFormat

/// The site strings spans are recorded under ("name @ Module/File.swift:12"): the trace names a call by its
/// site's address, read when the writer drains, so each is made once and kept for the process's life. A
/// program that names spans without end (an id in every name) stops getting new sites at `limit`; those spans
/// are recorded under one shared site, and their names still reach the trace in their details.
enum SpanSites {
    static let limit = 65536
    /// Addresses, kept as numbers: the strings are never freed nor written again.
    private static let table = Mutex<[String: UInt]>([:])
    private static let shared = UInt(bitPattern: strdup("span (too many span names) @ -"))

    static func site(name: String, file: String, line: UInt) -> UnsafePointer<CChar> {
        let text = SiteName.format(name: name, file: file, line: line)
        let address = table.withLock { sites in
            if let site = sites[text] { return site }
            guard sites.count < limit, let site = strdup(text) else { return shared }
            sites[text] = UInt(bitPattern: site)
            return UInt(bitPattern: site)
        }
        return UnsafePointer(bitPattern: address)!
    }
}
#endif
