import CLibdw

#if canImport(Glibc)
import Glibc
#endif

/// The main file's `.symtab`, read with libelf: the table libdwfl picks whenever the file has one, at a tenth
/// of the cost of `dwfl_module_getsym_info` per symbol. (Without one, libdwfl finds the debug file's table,
/// or the dynamic symbols and MiniDebugInfo; those go through libdwfl, as do relocatable files, whose
/// symbols libdwfl relocates to where it lays out each section.)
struct MainSymbolTable {
    let section: OpaquePointer
    let data: UnsafeMutablePointer<Elf_Data>
    let names: UnsafeRawBufferPointer
    let bias: UInt64
    let count: Int
    /// The entries as they lie in the file when it is a 64-bit file of this machine's byte order: read in place,
    /// not copied out one call at a time (nil: through `gelf_getsym`).
    let entries: UnsafeBufferPointer<Elf64_Sym>?
    /// Whether the string table ends in a NUL, as tables do: then every name that starts inside it ends there.
    let namesEndInNul: Bool

    init?(_ module: OpaquePointer) {
        var bias: GElf_Addr = 0
        guard let elf = dwfl_module_getelf(module, &bias) else { return nil }
        var file = GElf_Ehdr()
        guard gelf_getehdr(elf, &file) != nil, file.e_type == UInt16(ET_EXEC) || file.e_type == UInt16(ET_DYN)
        else { return nil }
        var section = elf_nextscn(elf, nil)
        while let current = section {
            var header = GElf_Shdr()
            if gelf_getshdr(current, &header) != nil, header.sh_type == SHT_SYMTAB {
                guard let data = elf_getdata(current, nil), let strings = elf_getscn(elf, Int(header.sh_link)),
                    let stringData = elf_getdata(strings, nil), let base = stringData.pointee.d_buf
                else { return nil }
                self.section = current
                self.data = data
                names = UnsafeRawBufferPointer(start: base, count: stringData.pointee.d_size)
                namesEndInNul = names.last == 0
                self.bias = bias
                count = header.sh_entsize > 0 ? Int(header.sh_size / header.sh_entsize) : 0
                let native = file.e_ident.4 == UInt8(ELFCLASS64) && file.e_ident.5 == UInt8(ELFDATA2LSB)
                if native, UInt16(littleEndian: 1) == 1, data.pointee.d_type == ELF_T_SYM,
                    let symbols = data.pointee.d_buf,
                    data.pointee.d_size >= count * MemoryLayout<Elf64_Sym>.stride,
                    Int(bitPattern: symbols) % MemoryLayout<Elf64_Sym>.alignment == 0
                {
                    entries = UnsafeBufferPointer(start: symbols.assumingMemoryBound(to: Elf64_Sym.self), count: count)
                } else {
                    entries = nil
                }
                return
            }
            section = elf_nextscn(elf, current)
        }
        return nil
    }

    /// As `dwfl_module_getsym_info` gives it: the address with the load bias, but for absolute symbols.
    func symbol(_ index: Int, _ symbol: inout GElf_Sym, _ address: inout GElf_Addr) -> UnsafePointer<CChar>? {
        if let entries {
            guard index < entries.count else { return nil }
            symbol = entries[index]
        } else if gelf_getsym(data, Int32(index), &symbol) == nil {
            return nil
        }
        // A name must end inside the table, as elf_strptr checks.
        guard Int(symbol.st_name) < names.count, let base = names.baseAddress,
            namesEndInNul || memchr(base + Int(symbol.st_name), 0, names.count - Int(symbol.st_name)) != nil
        else { return nil }
        let name = base + Int(symbol.st_name)
        address = symbol.st_shndx == UInt16(SHN_ABS) ? symbol.st_value : symbol.st_value &+ bias
        return name.assumingMemoryBound(to: CChar.self)
    }
}
