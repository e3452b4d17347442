import CLibdw

#if canImport(Glibc)
import Glibc
#endif

/// Per compile unit, read on first use: its line table (address -> file, line, column) and its functions' ranges.
extension ELFImage {
    /// A compile unit: its DIE offset, and lookup tables filled on first use.
    struct Unit {
        var offset: Dwarf_Off
        var directory: String? = nil
        var loaded = false
        var rows: [LineRow] = []
        var functions: [(low: UInt64, high: UInt64, die: Dwarf_Off)] = []
        /// The unit's file table, as numbers into the image's file names.
        var files: [Int32] = []
    }

    /// A row of a unit's line table.
    struct LineRow { var address: UInt64, file: Int32, line: Int32, column: Int32, endSequence: Bool }

    func dieAt(_ offset: Dwarf_Off) -> Dwarf_Die? {
        var die = Dwarf_Die()
        return dwarf_offdie(dwarf, offset, &die) != nil ? die : nil
    }

    /// Reads a unit's line table and function ranges.
    func load(_ index: Int) {
        guard !units[index].loaded, var unitDie = dieAt(units[index].offset) else { return }
        units[index].loaded = true
        units[index].directory = stringAttribute(&unitDie, Int32(DW_AT_comp_dir))
        var files: OpaquePointer?
        var fileCount = 0
        if dwarf_getsrcfiles(&unitDie, &files, &fileCount) == 0 {
            units[index].files = (0 ..< fileCount).map { position in
                fileID(
                    dwarf_filesrc(files, position, nil, nil).map {
                        normalize(String(cString: $0), directory: units[index].directory)
                    })
            }
        }
        var lines: OpaquePointer?
        var count = 0
        if dwarf_getsrclines(&unitDie, &lines, &count) == 0 {
            var byPointer = IntMap()  // libdw hands out each file name once
            units[index].rows.reserveCapacity(count)
            for position in 0 ..< count {
                guard let row = dwarf_onesrcline(lines, position) else { continue }
                var address: Dwarf_Addr = 0
                var line: Int32 = 0
                var column: Int32 = 0
                var end = false
                dwarf_lineaddr(row, &address)
                dwarf_lineno(row, &line)
                dwarf_linecol(row, &column)
                dwarf_lineendsequence(row, &end)
                var file: Int32 = -1
                if let source = dwarf_linesrc(row, nil, nil) {
                    if let known = byPointer[Int(bitPattern: source)] {
                        file = known
                    } else {
                        file = fileID(normalize(String(cString: source), directory: units[index].directory))
                        byPointer[Int(bitPattern: source)] = file
                    }
                }
                units[index].rows.append(
                    LineRow(address: address, file: file, line: line, column: column, endSequence: end))
            }
            units[index].rows.sort { $0.address < $1.address }  // stable: rows at one address keep their order
        }
        // Functions with code: subprograms anywhere in the unit's tree (Swift nests them under a module DIE).
        var functions: [(UInt64, UInt64, Dwarf_Off)] = []
        var pending: [Dwarf_Die] = []
        var child = Dwarf_Die()
        if dwarf_child(&unitDie, &child) == 0 { pending.append(child) }
        while var die = pending.popLast() {
            var sibling = Dwarf_Die()
            if dwarf_siblingof(&die, &sibling) == 0 { pending.append(sibling) }
            let tag = dwarf_tag(&die)
            if tag == DW_TAG_subprogram {
                var base: Dwarf_Addr = 0
                var start: Dwarf_Addr = 0
                var end: Dwarf_Addr = 0
                var offset = dwarf_ranges(&die, 0, &base, &start, &end)
                while offset > 0 {
                    if end > start { functions.append((start, end, dwarf_dieoffset(&die))) }
                    offset = dwarf_ranges(&die, offset, &base, &start, &end)
                }
            }
            // Swift nests closures' subprograms inside their function's; inlined code is walked per lookup.
            if tag == DW_TAG_subprogram || tag == DW_TAG_module || tag == DW_TAG_namespace
                || tag == DW_TAG_structure_type
                || tag == DW_TAG_class_type || tag == DW_TAG_enumeration_type || tag == DW_TAG_union_type
                || tag == DW_TAG_lexical_block
            {
                var nested = Dwarf_Die()
                if dwarf_child(&die, &nested) == 0 { pending.append(nested) }
            }
        }
        functions.sort { ($0.0, $1.1) < ($1.0, $0.1) }
        units[index].functions = functions.map { (low: $0.0, high: $0.1, die: $0.2) }
    }

    func functionAt(_ address: UInt64, _ unit: Int) -> (low: UInt64, high: UInt64, die: Dwarf_Off)? {
        Self.containing(address, in: units[unit].functions, lookBack: 16, start: \.low, end: \.high)
    }

    /// The row with the greatest address not above `address`, as llvm-symbolizer picks it; none past the end of
    /// a sequence.
    func lineAt(_ address: UInt64, _ unit: Int) -> (file: Int32, line: Int32, column: Int32)? {
        let rows = units[unit].rows
        let past = Self.partition(address, in: rows, start: \.address)
        guard past > 0, !rows[past - 1].endSequence else { return nil }
        let row = rows[past - 1]
        return (row.file, row.line, row.column)
    }

    func stringAttribute(_ die: UnsafeMutablePointer<Dwarf_Die>, _ name: Int32) -> String? {
        var attribute = Dwarf_Attribute()
        guard dwarf_attr(die, UInt32(name), &attribute) != nil, let text = dwarf_formstring(&attribute) else {
            return nil
        }
        return String(cString: text)
    }

    /// Joins a relative path to the compile directory and collapses `//`, as llvm-symbolizer prints them.
    func normalize(_ path: String, directory: String?) -> String {
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
