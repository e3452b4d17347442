import CLibdw

#if canImport(Glibc)
import Glibc
#endif

/// What a compile unit's lookups need, read when an address first falls in the unit: its file table (for call
/// sites), line table, functions and their inlined calls.
struct LoadedUnit {
    /// The unit's file table, as numbers into the interned files.
    var files: [Int32] = []
    var lines = LineTable()
    var functions = UnitFunctions()
    /// The functions' inlined calls: all of them when `UnitWalk` read the unit, else each function's as libdw
    /// reads it on its first lookup (`treeIndex` says which tree, by DIE offset).
    var calls = InlineCalls()
    var treeIndex = IntMap()
    /// The unit as `DIEReader` reads it, when it can.
    var header: DIEReader.Unit?
    /// false for a unit not read yet.
    private(set) var isLoaded = false

    init() {}

    /// Read with `DIEReader` where it can, else with libdw; empty tables when libdw cannot find the unit's DIE.
    init(
        offset: Dwarf_Off, start: UInt64?, dwarf: OpaquePointer?, reader: inout DIEReader?,
        names: inout InternedNames, prepared: BatchWorker.Prepared? = nil
    ) {
        isLoaded = true
        // The header is read here even when a `BatchWorker` read the rest: `unit.table` numbers this reader's
        // abbreviation tables. The worker's decoded table is taken, though.
        if let table = prepared?.abbreviations, reader != nil { reader!.adopt(table.table, at: table.offset) }
        if let start, reader != nil, let unit = reader!.unit(at: start), unit.dieOffset == offset,
            let tables = prepared?.tables ?? UnitTables(unit, reader: &reader!)
        {
            header = unit
            files = tables.paths.map { names.fileID($0) }
            lines = tables.lines
            lines.files = files
            functions = tables.walk.functions
            calls = tables.walk.calls
            return
        }
        guard var unitDie = LibdwDIE.at(offset, in: dwarf) else { return }
        let directory = LibdwDIE.string(&unitDie, Int32(DW_AT_comp_dir))
        var table: OpaquePointer?
        var fileCount = 0
        if dwarf_getsrcfiles(&unitDie, &table, &fileCount) == 0 {
            files = (0 ..< fileCount).map { position in
                names.fileID(
                    dwarf_filesrc(table, position, nil, nil).map {
                        LibdwDIE.sourcePath($0, compileDirectory: directory)
                    })
            }
        }
        lines = LineTable(&unitDie, directory: directory, names: &names)
        functions = UnitFunctions(&unitDie)
    }
}
