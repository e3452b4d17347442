/// What `DIEReader` and `LineProgramReader` read of a unit for its lookups, before its files are interned: the
/// part of loading a unit that needs no state shared with other units, so that a `BatchWorker` can do it.
struct UnitTables {
    /// The line table, its `files` not set yet.
    var lines: LineTable
    /// The unit's file table, joined to the compile directory as llvm-symbolizer prints paths.
    var paths: [String]
    var walk: UnitWalk

    /// nil when the reader cannot read the unit's line program or DIEs (libdw reads them then).
    init?(_ unit: DIEReader.Unit, reader: inout DIEReader) {
        guard var program = reader.lineProgram(unit), let walk = UnitWalk(unit, reader: &reader) else { return nil }
        paths = program.files
        lines = LineTable(rows: program.takeRows())
        self.walk = walk
    }
}
