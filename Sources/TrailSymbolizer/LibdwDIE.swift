import CLibdw

#if canImport(Glibc)
import Glibc
#endif

/// The few questions the tables ask libdw about one DIE.
enum LibdwDIE {
    /// A source path libdw gave (`dwarf_filesrc`, `dwarf_linesrc`) as llvm-symbolizer prints it. libdw has put a
    /// file of directory 0 under the compile directory already, and a file of a relative include directory not:
    /// so a relative path that starts with a relative compile directory is not joined to it again.
    static func sourcePath(_ path: UnsafePointer<CChar>, compileDirectory directory: String?) -> String {
        let path = String(cString: path)
        if let directory, !directory.hasPrefix("/"), path.hasPrefix(directory + "/") {
            return InternedNames.normalize(path, directory: nil)
        }
        return InternedNames.normalize(path, directory: directory)
    }

    static func at(_ offset: Dwarf_Off, in dwarf: OpaquePointer?) -> Dwarf_Die? {
        var die = Dwarf_Die()
        return dwarf_offdie(dwarf, offset, &die) != nil ? die : nil
    }

    /// The DIE's address ranges (low and high PC, or a range list), empty ones left out.
    static func ranges(_ die: UnsafeMutablePointer<Dwarf_Die>) -> [(low: UInt64, high: UInt64)] {
        var ranges: [(low: UInt64, high: UInt64)] = []
        var base: Dwarf_Addr = 0
        var start: Dwarf_Addr = 0
        var end: Dwarf_Addr = 0
        var offset = dwarf_ranges(die, 0, &base, &start, &end)
        while offset > 0 {
            if end > start { ranges.append((start, end)) }
            offset = dwarf_ranges(die, offset, &base, &start, &end)
        }
        return ranges
    }

    static func string(_ die: UnsafeMutablePointer<Dwarf_Die>, _ name: Int32) -> String? {
        var attribute = Dwarf_Attribute()
        guard dwarf_attr(die, UInt32(name), &attribute) != nil, let text = dwarf_formstring(&attribute) else {
            return nil
        }
        return String(cString: text)
    }

    /// The linkage name, else the name, also from the abstract origin or specification.
    static func linkageName(_ die: UnsafeMutablePointer<Dwarf_Die>) -> UnsafePointer<CChar>? {
        var attribute = Dwarf_Attribute()
        for name in [DW_AT_linkage_name, DW_AT_MIPS_linkage_name] {
            if dwarf_attr_integrate(die, UInt32(name), &attribute) != nil, let text = dwarf_formstring(&attribute) {
                return text
            }
        }
        return dwarf_diename(die)
    }

    /// A constant attribute, as `dwarf_formudata` reads it.
    static func unsigned(_ die: UnsafeMutablePointer<Dwarf_Die>, _ name: Int32) -> UInt64? {
        var attribute = Dwarf_Attribute()
        var value: Dwarf_Word = 0
        guard dwarf_attr(die, UInt32(name), &attribute) != nil, dwarf_formudata(&attribute, &value) == 0 else {
            return nil
        }
        return value
    }
}
