import CLibdw

#if canImport(Glibc)
import Glibc
#endif

/// The symbol table, read once per file: function names (and the object file of local ones) for code without
/// debug info.
struct SymbolTable {
    /// Functions in the symbol table, by address; `end` holds the size until the table is sorted.
    struct Symbol {
        var address: UInt64
        var end: UInt64
        var name: UnsafePointer<CChar>
        /// Into `objects`, or -1.
        var object: Int32
    }

    struct ObjectName { var name: UnsafePointer<CChar>, file: Int32? = nil }

    /// Functions by address.
    private(set) var symbols: [Symbol] = []
    /// The STT_FILE names, and their file numbers once needed.
    private var objects: [ObjectName] = []

    init() {}

    /// The module's symbol table: `.symtab` through libelf, else whatever libdwfl finds.
    init(module: OpaquePointer) {
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
            // An IFUNC's resolver is named as llvm-symbolizer names it: by the global IFUNC symbol
            // (`memcpy@@GLIBC_2.14`), which comes after the resolver's local one (`__new_memcpy_ifunc`).
            guard type == STT_FUNC || type == STT_NOTYPE || type == STT_GNU_IFUNC,
                symbol.st_shndx != UInt16(SHN_UNDEF), address != 0
            else {
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

    /// The file of a symbol-only frame: the object file its symbol came from, when the table says.
    mutating func objectFile(_ index: Int32, names: inout InternedNames) -> Int32 {
        guard index >= 0 else { return -1 }
        if let known = objects[Int(index)].file { return known }
        let file = names.fileID(String(cString: objects[Int(index)].name))
        objects[Int(index)].file = file
        return file
    }

    func symbol(at address: UInt64) -> Symbol? {
        AddressSearch.containing(address, in: symbols, lookBack: 4, start: \.address, end: \.end)
    }
}
