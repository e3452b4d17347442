#if canImport(Glibc)
import Glibc
#endif

/// Decodes a unit's line program from `.debug_line` (DWARF 2 to 5) into the rows and file names libdw's
/// `dwarf_getsrclines` and `dwarf_getsrcfiles` give: files joined to their directory (the compile directory for
/// directory 0 before DWARF 5) unless absolute, relative ones then under the compile directory as
/// llvm-symbolizer prints them; rows sorted by address with an end of sequence before a row at its address,
/// columns cut to 16 bits as libdw keeps them.
///
/// Returns nil for anything it does not understand (a form, VLIW operation indices, a damaged header), and the
/// caller asks libdw instead.
struct LineProgramReader {
    /// Rows as `LineTable` keeps them, `file` still the program's file number (its 32 bits, as libdw's).
    typealias Row = LineTable.Row

    /// The files' paths, by the numbers rows and call sites use (DWARF 4's start at 1: 0 is `???`).
    private(set) var files: [String] = []
    private(set) var rows: [Row] = []

    init() {}

    /// The rows, handed over without a copy.
    mutating func takeRows() -> [Row] {
        defer { rows = [] }
        return rows
    }

    init?(
        _ line: ByteReader, offset: UInt64, addressSize: Int, compDir: String?, str: ByteReader, lineStr: ByteReader
    ) {
        var reader = line
        reader.position = Int(clamping: offset)
        var offsetSize = 4
        var length = reader.fixed(4)
        if length == 0xffff_ffff {
            offsetSize = 8
            length = reader.fixed(8)
        }
        guard !reader.failed, length <= UInt64(reader.bytes.count - reader.position) else { return nil }
        let end = reader.position + Int(length)
        let version = Int(reader.fixed(2))
        guard (2 ... 5).contains(version) else { return nil }
        var addressSize = addressSize
        if version >= 5 {
            addressSize = Int(reader.fixed(1))
            guard reader.fixed(1) == 0 else { return nil }  // segment selectors
        }
        let headerLength = reader.fixed(offsetSize)
        guard !reader.failed, reader.position <= end, headerLength <= UInt64(end - reader.position) else { return nil }
        let programStart = reader.position + Int(headerLength)
        let minimumLength = reader.fixed(1)
        if version >= 4, reader.fixed(1) != 1 { return nil }  // VLIW operation indices
        _ = reader.fixed(1)  // default_is_stmt
        let lineBase = Int64(Int8(truncatingIfNeeded: reader.fixed(1)))
        let lineRange = reader.fixed(1)
        let opcodeBase = Int(reader.fixed(1))
        guard !reader.failed, lineRange > 0, opcodeBase > 0 else { return nil }
        var argumentCounts = [UInt64](repeating: 0, count: opcodeBase)
        for index in 1 ..< opcodeBase { argumentCounts[index] = reader.fixed(1) }

        func text(_ start: UnsafeRawPointer) -> String { String(cString: start.assumingMemoryBound(to: CChar.self)) }
        func string(_ form: UInt64, _ value: UInt64) -> String? {
            let section: ByteReader
            switch form {
            case 0x08: section = reader  // string: where it starts
            case 0x1f: section = lineStr
            case 0x0e: section = str
            default: return nil
            }
            guard value < UInt64(section.bytes.count), let base = section.bytes.baseAddress else { return nil }
            guard memchr(base + Int(value), 0, section.bytes.count - Int(value)) != nil else { return nil }
            return text(base + Int(value))
        }
        var directories: [String?] = []
        var names: [(name: String, directory: Int)] = []
        if version < 5 {
            // DWARF 4's directory and file lists: strings in place, each list ended by an empty one. nil at the
            // end; .some(nil) for a name that cannot be read.
            func nextName() -> String?? {
                let start = reader.position
                guard reader.fixed(1) != 0, !reader.failed else { return nil }
                reader.position = start
                var form: UInt64 = 0x08  // string
                let value = reader.attributeValue(
                    &form, implicit: 0, version: 4, offsetSize: 4, addressSize: addressSize)
                return .some(string(0x08, value ?? UInt64.max))
            }
            directories.append(compDir)
            while let entry = nextName() {
                guard let name = entry else { return nil }
                directories.append(name)
            }
            names.append(("???", -1))
            while let entry = nextName() {
                guard let name = entry else { return nil }
                let directory = reader.uleb()
                _ = reader.uleb()  // modification time
                _ = reader.uleb()  // length
                names.append((name, Int(clamping: directory)))
            }
        } else {
            for isFiles in [false, true] {
                let formatCount = Int(reader.fixed(1))
                var formats: [(content: UInt64, form: UInt64)] = []
                for _ in 0 ..< formatCount { formats.append((reader.uleb(), reader.uleb())) }
                let count = reader.uleb()
                // (Every read here is checked against the section's end only: a header cut short by its unit's
                // length reads on into the next unit, and must not make the remaining length negative.)
                guard !reader.failed, reader.position <= end, count <= UInt64(end - reader.position) else {
                    return nil
                }
                for _ in 0 ..< count {
                    var name: String?
                    var directory = 0
                    for format in formats {
                        var form = format.form
                        guard
                            let value = reader.attributeValue(
                                &form, implicit: 0, version: 5, offsetSize: offsetSize, addressSize: addressSize),
                            !reader.failed, reader.position <= end
                        else { return nil }
                        if format.content == 1 {  // DW_LNCT_path
                            guard let found = string(form, value) else { return nil }
                            name = found
                        } else if format.content == 2 {  // DW_LNCT_directory_index
                            directory = Int(clamping: value)
                        }
                    }
                    guard let name else { return nil }
                    if isFiles { names.append((name, directory)) } else { directories.append(name) }
                }
            }
        }
        guard !reader.failed else { return nil }
        // Paths as llvm-symbolizer prints them: a relative one goes under the compile directory, but not one in
        // directory 0, which is the compile directory already (DWARF 5 names it; DWARF 4's is `compDir`, above).
        func path(_ entry: (name: String, directory: Int)) -> String {
            if entry.directory >= 0, entry.name.utf8.first != 47, entry.directory < directories.count,
                let directory = directories[entry.directory]
            {
                let joined = directory + "/" + entry.name
                return InternedNames.normalize(joined, directory: entry.directory == 0 ? nil : compDir)
            }
            return InternedNames.normalize(entry.name, directory: compDir)
        }
        files = names.map(path)
        rows =
            Self.run(
                &reader, from: programStart, to: end, addressSize: addressSize, minimumLength: minimumLength,
                lineBase: lineBase, lineRange: lineRange, opcodeBase: opcodeBase, argumentCounts: argumentCounts) ?? []
        if reader.failed { return nil }
    }

    /// Runs the line program's state machine; nil on an opcode it cannot step over.
    private static func run(
        _ reader: inout ByteReader, from start: Int, to end: Int, addressSize: Int, minimumLength: UInt64,
        lineBase: Int64, lineRange: UInt64, opcodeBase: Int, argumentCounts: [UInt64]
    ) -> [Row]? {
        var rows: [Row] = []
        rows.reserveCapacity((end - start) / 2)
        var address: UInt64 = 0
        var file: UInt64 = 1
        var line: Int64 = 1
        var column: UInt64 = 0
        func emit(_ endSequence: Bool) {
            rows.append(
                Row(
                    address: address, file: Int32(truncatingIfNeeded: file), line: Int32(truncatingIfNeeded: line),
                    column: Int32(UInt16(truncatingIfNeeded: column)), endSequence: endSequence))
        }
        reader.position = start
        while reader.position < end, !reader.failed {
            let opcode = Int(reader.fixed(1))
            if opcode >= opcodeBase {
                let adjusted = UInt64(opcode - opcodeBase)
                address &+= minimumLength &* (adjusted / lineRange)
                line &+= lineBase &+ Int64(adjusted % lineRange)
                emit(false)
                continue
            }
            switch opcode {
            case 0:  // extended
                let length = reader.uleb()
                guard !reader.failed, length > 0, reader.position <= end, length <= UInt64(end - reader.position)
                else { return nil }
                let next = reader.position + Int(length)
                switch reader.fixed(1) {
                case 1:  // end_sequence
                    emit(true)
                    (address, file, line, column) = (0, 1, 1, 0)
                case 2:  // set_address
                    guard length - 1 == UInt64(addressSize) else { return nil }
                    address = reader.fixed(addressSize)
                case 3: return nil  // define_file
                default: break  // set_discriminator and others
                }
                reader.position = next
            case 1: emit(false)  // copy
            case 2: address &+= minimumLength &* reader.uleb()  // advance_pc
            case 3: line &+= reader.sleb()  // advance_line
            case 4: file = reader.uleb()  // set_file
            case 5: column = reader.uleb()  // set_column
            case 8: address &+= minimumLength &* ((255 - UInt64(opcodeBase)) / lineRange)  // const_add_pc
            case 9: address &+= reader.fixed(2)  // fixed_advance_pc
            default:  // negate_stmt, basic_block, prologue_end, epilogue_begin, isa, unknown: their arguments
                for _ in 0 ..< argumentCounts[opcode] { _ = reader.uleb() }
            }
        }
        guard !reader.failed else { return nil }
        // As libdw sorts them: by address, at one address an end of sequence first, then in the program's order.
        var sorted = true
        for index in rows.indices.dropFirst() {
            let (previous, row) = (rows[index - 1], rows[index])
            if previous.address > row.address
                || previous.address == row.address && row.endSequence
                    && !previous.endSequence
            {
                sorted = false
                break
            }
        }
        if sorted { return rows }  // sequences usually come in address order
        guard rows.allSatisfy({ $0.address < 1 << 62 }) else { return nil }
        let unsorted = rows
        return stableOrder(unsorted.count) { unsorted[$0].address << 1 | (unsorted[$0].endSequence ? 0 : 1) }
            .map { unsorted[$0] }
    }
}
