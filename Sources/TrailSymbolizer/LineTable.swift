import CLibdw

#if canImport(Glibc)
import Glibc
#endif

/// One compile unit's line table: address -> file, line, column, read when the unit is first needed.
struct LineTable {
    /// A row, its file a number into `files`.
    struct Row { var address: UInt64, file: Int32, line: Int32, column: Int32, endSequence: Bool }

    private(set) var rows: [Row] = []
    /// The rows' files as numbers of interned files (-1: none). Kept apart from the rows so that a second
    /// thread can read the rows before the files are interned, and no row is rewritten.
    var files: [Int32] = []

    init() {}

    /// The unit's rows by address, their files interned into `names` (paths joined to `directory`).
    init(_ unitDie: inout Dwarf_Die, directory: String?, names: inout InternedNames) {
        var lines: OpaquePointer?
        var count = 0
        guard dwarf_getsrclines(&unitDie, &lines, &count) == 0 else { return }
        var byPointer = IntMap()  // libdw hands out each file name once: by its pointer, its number in `files`
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
                    files.append(names.fileID(LibdwDIE.sourcePath(source, compileDirectory: directory)))
                    file = Int32(files.count - 1)
                    byPointer[Int(bitPattern: source)] = file
                }
            }
            rows.append(Row(address: address, file: file, line: line, column: column, endSequence: end))
        }
        rows.sort { $0.address < $1.address }  // stable: rows at one address keep their order
    }

    /// Rows `LineProgramReader` decoded, their files still the program's numbers: `files` maps them once the
    /// unit's files are interned.
    init(rows: [Row]) { self.rows = rows }

    /// The row with the greatest address not above `address`, as llvm-symbolizer picks it; none past the end of
    /// a sequence.
    func location(at address: UInt64) -> (file: Int32, line: Int32, column: Int32)? {
        let past = AddressSearch.partition(address, in: rows, start: \.address)
        guard past > 0, !rows[past - 1].endSequence else { return nil }
        let row = rows[past - 1]
        return (row.file >= 0 && row.file < files.count ? files[Int(row.file)] : -1, row.line, row.column)
    }
}
