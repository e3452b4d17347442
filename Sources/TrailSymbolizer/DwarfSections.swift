import CLibdw

#if canImport(Glibc)
import Glibc
#endif

/// The DWARF sections of the ELF file libdw reads (after libdw has decompressed them in place), as byte ranges
/// the readers here decode directly. A section this cannot take as it is (compressed, `.zdebug`, no bytes in the
/// file) is marked unreadable, and the readers that need it leave the work to libdw.
struct DwarfSections {
    enum Name: Int, CaseIterable {
        case info, abbrev, ranges, rnglists, addr, str, lineStr, strOffsets, line
    }

    private(set) var sections = Array(repeating: ByteReader(), count: Name.allCases.count)
    /// Bit `Name.rawValue` set: the section is there but cannot be read here.
    private(set) var unreadable = 0

    /// nil for a big-endian file, or one whose section names cannot be read.
    init?(_ elf: OpaquePointer) {
        guard let identity = elf_getident(elf, nil), identity[Int(EI_DATA)] == ELFDATA2LSB else { return nil }
        var names = 0
        guard elf_getshdrstrndx(elf, &names) == 0 else { return nil }
        var section = elf_nextscn(elf, nil)
        while let current = section {
            defer { section = elf_nextscn(elf, current) }
            var header = GElf_Shdr()
            guard gelf_getshdr(current, &header) != nil, let name = elf_strptr(elf, names, Int(header.sh_name)) else {
                continue
            }
            let known: Name
            switch String(cString: name) {
            case ".debug_info": known = .info
            case ".debug_abbrev": known = .abbrev
            case ".debug_ranges": known = .ranges
            case ".debug_rnglists": known = .rnglists
            case ".debug_addr": known = .addr
            case ".debug_str": known = .str
            case ".debug_line_str": known = .lineStr
            case ".debug_str_offsets": known = .strOffsets
            case ".debug_line": known = .line
            case let other where other.hasPrefix(".zdebug"):
                unreadable = ~0
                continue
            default: continue
            }
            guard header.sh_flags & UInt64(SHF_COMPRESSED) == 0, header.sh_type != SHT_NOBITS else {
                unreadable |= 1 << known.rawValue
                continue
            }
            guard let data = elf_getdata(current, nil), let bytes = data.pointee.d_buf else { continue }
            sections[known.rawValue] = ByteReader(UnsafeRawBufferPointer(start: bytes, count: data.pointee.d_size))
        }
    }

    subscript(_ name: Name) -> ByteReader { sections[name.rawValue] }

    /// Whether all these sections can be read here (those missing count as empty).
    func readable(_ names: [Name]) -> Bool {
        names.allSatisfy { unreadable & 1 << $0.rawValue == 0 }
    }
}
