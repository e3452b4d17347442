import CLibdw

#if canImport(Glibc)
import Glibc
#endif

/// The symbol table: function names (and the object file of local ones) for code without debug info.
extension ELFImage {
    /// Functions in the symbol table, by address; `end` holds the size until the table is sorted.
    struct Symbol {
        var address: UInt64
        var end: UInt64
        var name: UnsafePointer<CChar>
        /// Into `objects`, or -1.
        var object: Int32
    }

    struct ObjectName { var name: UnsafePointer<CChar>, file: Int32? = nil }

    func indexSymbols() {
        let count = dwfl_module_getsymtab(module)
        guard count > 0 else { return }
        var entries: [Symbol] = []
        entries.reserveCapacity(Int(count))
        var object: Int32 = -1  // the STT_FILE entry before a local symbol names the object file it came from
        let table = MainSymbolTable(module).flatMap { $0.count == Int(count) ? $0 : nil }
        for index in 1 ..< count {
            var symbol = GElf_Sym()
            var address: GElf_Addr = 0
            let found: UnsafePointer<CChar>?
            if let table {
                found = table.symbol(Int(index), &symbol, &address)
            } else {
                found = dwfl_module_getsym_info(module, index, &symbol, &address, nil, nil, nil)
            }
            guard let name = found else { continue }
            let type = Int32(symbol.st_info & 0xF)
            let binding = Int32(symbol.st_info >> 4)
            if type == STT_FILE {
                objects.append(ObjectName(name: name))
                object = Int32(objects.count - 1)
                continue
            }
            guard type == STT_FUNC || type == STT_NOTYPE, symbol.st_shndx != UInt16(SHN_UNDEF), address != 0 else {
                continue
            }
            // A hidden symbol made local by the linker sits after every file's group, behind the last STT_FILE
            // (often crtstuff.c): only a local of default visibility belongs to the file before it.
            let fileLocal = binding == STB_LOCAL && Int32(symbol.st_other & 3) == STV_DEFAULT
            entries.append(Symbol(address: address, end: symbol.st_size, name: name, object: fileLocal ? object : -1))
        }
        let unsorted = entries
        entries = stableOrder(unsorted.count) { unsorted[$0].address }.map { unsorted[$0] }
        // A symbol without a size reaches to the next one at a higher address, unless it is an alias of one
        // with a size (`main` of `CrashLab_main`): then it covers what that one does, not the padding after.
        // (`end` holds each size until here; a damaged table's sizes may run past the top.)
        var run = 0
        while run < entries.count {
            let address = entries[run].address
            var next = run + 1
            while next < entries.count, entries[next].address == address { next += 1 }
            let largest = entries[run ..< next].reduce(UInt64(0)) { max($0, $1.end) }
            // Lookups take the last match: a sized symbol names the code before its size-0 aliases do, as
            // llvm-symbolizer has it, whatever order the linker wrote them in.
            if next - run > 1 {
                let sizedLast =
                    entries[run ..< next].filter { $0.end == 0 } + entries[run ..< next].filter { $0.end > 0 }
                entries.replaceSubrange(run ..< next, with: sizedLast)
            }
            for index in run ..< next {
                let size = entries[index].end > 0 ? entries[index].end : largest
                let end = size > 0 ? address &+ size : next < entries.count ? entries[next].address : address &+ 1
                entries[index].end = end > address ? end : .max
            }
            run = next
        }
        symbols = entries
    }

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
                    self.bias = bias
                    count = header.sh_entsize > 0 ? Int(header.sh_size / header.sh_entsize) : 0
                    return
                }
                section = elf_nextscn(elf, current)
            }
            return nil
        }

        /// As `dwfl_module_getsym_info` gives it: the address with the load bias, but for absolute symbols.
        func symbol(_ index: Int, _ symbol: inout GElf_Sym, _ address: inout GElf_Addr) -> UnsafePointer<CChar>? {
            // A name must end inside the table, as elf_strptr checks.
            guard gelf_getsym(data, Int32(index), &symbol) != nil, Int(symbol.st_name) < names.count,
                let base = names.baseAddress,
                memchr(base + Int(symbol.st_name), 0, names.count - Int(symbol.st_name)) != nil
            else { return nil }
            let name = base + Int(symbol.st_name)
            address = symbol.st_shndx == UInt16(SHN_ABS) ? symbol.st_value : symbol.st_value &+ bias
            return name.assumingMemoryBound(to: CChar.self)
        }
    }

    /// The file of a symbol-only frame: the object file its symbol came from, when the table says.
    func objectFile(_ index: Int32) -> Int32 {
        guard index >= 0 else { return -1 }
        if let known = objects[Int(index)].file { return known }
        let file = fileID(String(cString: objects[Int(index)].name))
        objects[Int(index)].file = file
        return file
    }

    func symbolAt(_ address: UInt64) -> Symbol? {
        Self.containing(address, in: symbols, lookBack: 4, start: \.address, end: \.end)
    }
}
