import CLibdw

#if canImport(Glibc)
import Glibc
#endif

/// One compile unit's line table: address -> file, line, column, read with libdw when the unit is first needed.
struct LineTable {
    /// A row, its file a number into the interned files.
    struct Row { var address: UInt64, file: Int32, line: Int32, column: Int32, endSequence: Bool }

    private(set) var rows: [Row] = []

    init() {}

    /// The unit's rows by address, their files interned into `names` (paths joined to `directory`).
    init(_ unitDie: inout Dwarf_Die, directory: String?, names: inout InternedNames) {
        var lines: OpaquePointer?
        var count = 0
        guard dwarf_getsrclines(&unitDie, &lines, &count) == 0 else { return }
        var byPointer = IntMap()  // libdw hands out each file name once
        rows.reserveCapacity(count)
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
                    file = names.fileID(InternedNames.normalize(String(cString: source), directory: directory))
                    byPointer[Int(bitPattern: source)] = file
                }
            }
            rows.append(Row(address: address, file: file, line: line, column: column, endSequence: end))
        }
        rows.sort { $0.address < $1.address }  // stable: rows at one address keep their order
    }

    /// Rows `LineProgramReader` decoded, their file numbers turned into numbers of interned files by `files`
    /// (the unit's file table; -1 past its end).
    init(_ decoded: [Row], files: [Int32]) {
        rows = decoded
        for index in rows.indices {
            let file = rows[index].file
            rows[index].file = file >= 0 && file < files.count ? files[Int(file)] : -1
        }
    }

    /// The row with the greatest address not above `address`, as llvm-symbolizer picks it; none past the end of
    /// a sequence.
    func location(at address: UInt64) -> (file: Int32, line: Int32, column: Int32)? {
        let past = AddressSearch.partition(address, in: rows, start: \.address)
        guard past > 0, !rows[past - 1].endSequence else { return nil }
        let row = rows[past - 1]
        return (row.file, row.line, row.column)
    }
}
