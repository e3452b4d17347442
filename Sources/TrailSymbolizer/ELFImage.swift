#if canImport(Glibc)
import Glibc
#endif
import CLibdw

/// One frame of a symbolized address: a function and where in it. An address inside inlined code gives
/// several, innermost first; all but the last are `inlined`.
public struct SymbolizedFrame: Sendable, Equatable {
    /// The linkage (mangled) name, as in the symbol table or DWARF; empty when unknown.
    public var mangledName: String
    /// Demangled in full (Swift and C++), computed when asked for: a crash report shows the simplified form;
    /// the mangled name when it is not mangled, `??` when unknown.
    public var function: String { mangledName.isEmpty ? "??" : Demangler.shared.demangle(mangledName) }
    public var file: String?
    public var line: Int
    public var column: Int
    public var inlined: Bool
    /// Bytes from the function's start, for the outermost frame.
    public var offset: UInt64?
}

public struct SymbolizerError: Error, CustomStringConvertible, Sendable {
    public var description: String
}

/// An ELF file opened with libdw, indexed for fast lookups of many addresses: a table of compile-unit address
/// ranges (swiftc emits no `.debug_aranges`, which libdw's own lookups rely on), and per compile unit, built on
/// first use, its line table and its functions. The symbol table answers for code without debug info.
public final class ELFImage {
    public let path: String
    public let buildID: String?
    /// Whether the file has DWARF line information at all (a stripped binary has not).
    public var hasDebugInfo: Bool { dwarf != nil && !units.isEmpty }

    private var callbacks: UnsafeMutablePointer<Dwfl_Callbacks>
    private let session: OpaquePointer
    private let module: OpaquePointer
    private let dwarf: OpaquePointer?
    private let bias: UInt64
    private var units: [Unit] = []
    private var unitRanges: [UnitRange] = []
    /// Functions in the symbol table, by address; `end` holds the size until the table is sorted.
    private struct Symbol {
        var address: UInt64
        var end: UInt64
        var name: UnsafePointer<CChar>
        /// Into `objects`, or -1.
        var object: Int32
    }
    private var symbols: [Symbol] = []
    /// The symbol table's STT_FILE names, and their file numbers once needed.
    private var objects: [ObjectName] = []
    private let demangler = Demangler.shared

    /// Function names and file paths, interned: frames refer to them by number, and output copies their bytes.
    /// Names are demangled on first output. (Dictionaries here are keyed by String only: a key type's first
    /// use costs a scan of the runtime's conformance records; Int keys go in an `IntMap`.)
    private var names: [Name] = []
    private var nameIDs = IntMap()
    private var files: [File] = []
    private var fileIDs: [String: Int32] = [:]

    // Table rows are small structs rather than tuples: each element type of an array is instantiated at
    // run time, and a tuple's costs several times a struct's, which adds up in a one-crash run.
    private struct UnitRange { var low: UInt64, high: UInt64, unit: Int }
    private struct Name { var mangled: String, display: [UInt8]? = nil }
    private struct File { var text: String, bytes: [UInt8] }
    private struct ObjectName { var name: UnsafePointer<CChar>, file: Int32? = nil }
    /// A DIE still to visit in a function's tree, with the inlined call it sits in (-1: none) and its depth.
    private struct PendingDie { var die: Dwarf_Die, parent: Int, depth: Int }

    /// A frame before it becomes public: numbers into the tables above, -1 when unknown.
    struct RawFrame {
        var name: Int32
        var file: Int32
        var line: Int32
        var column: Int32
        var inlined: Bool
        var offset: UInt64?
    }

    private func nameID(_ pointer: UnsafePointer<CChar>?) -> Int32 {
        guard let pointer, pointer.pointee != 0 else { return -1 }
        let key = Int(bitPattern: pointer)
        if let known = nameIDs[key] { return known }
        names.append(Name(mangled: String(cString: pointer)))
        nameIDs[key] = Int32(names.count - 1)
        return Int32(names.count - 1)
    }

    /// A name's demangled bytes, for address-mode output.
    private func display(_ id: Int32) -> [UInt8] {
        if let known = names[Int(id)].display { return known }
        let bytes = Array(demangler.demangle(names[Int(id)].mangled).utf8)
        names[Int(id)].display = bytes
        return bytes
    }

    private func fileID(_ path: String?) -> Int32 {
        guard let path else { return -1 }
        if let known = fileIDs[path] { return known }
        files.append(File(text: path, bytes: Array(path.utf8)))
        fileIDs[path] = Int32(files.count - 1)
        return Int32(files.count - 1)
    }

    /// A compile unit: its DIE offset, and lookup tables filled on first use.
    private struct Unit {
        var offset: Dwarf_Off
        var directory: String? = nil
        var loaded = false
        var rows: [LineRow] = []
        var functions: [(low: UInt64, high: UInt64, die: Dwarf_Off)] = []
        /// The unit's file table, as numbers into the image's file names.
        var files: [Int32] = []
    }

    private struct LineRow {
        var address: UInt64
        var file: Int32
        var line: Int32
        var column: Int32
        var endSequence: Bool
    }

    public convenience init(path: String) throws(SymbolizerError) {
        try self.init(path: path, unitsFromLibdw: false)
    }

    /// `unitsFromLibdw`: index compile units with libdw's walk, not `UnitRangeReader` (for tests that compare).
    init(path: String, unitsFromLibdw: Bool) throws(SymbolizerError) {
        self.path = path
        guard access(path, R_OK) == 0 else {
            throw SymbolizerError(description: "\(path): cannot read (\(String(cString: strerror(errno))))")
        }
        callbacks = .allocate(capacity: 1)
        callbacks.initialize(to: Dwfl_Callbacks())
        callbacks.pointee.find_elf = dwfl_build_id_find_elf
        callbacks.pointee.find_debuginfo = dwfl_standard_find_debuginfo
        callbacks.pointee.section_address = dwfl_offline_section_address
        guard let session = dwfl_begin(callbacks) else {
            callbacks.deallocate()
            throw SymbolizerError(description: "\(path): libdw: \(String(cString: dwfl_errmsg(-1)))")
        }
        self.session = session
        dwfl_report_begin(session)
        // Reported with its first segment at its own address (add_p_vaddr), the module's addresses are the
        // file's virtual addresses, also for a library linked above 0 (`-Ttext-segment`, prelink).
        guard let module = dwfl_report_elf(session, path, path, -1, 0, true) else {
            let message = String(cString: dwfl_errmsg(-1))
            dwfl_end(session)
            callbacks.deallocate()
            throw SymbolizerError(description: "\(path): not an ELF file libdw can read (\(message))")
        }
        dwfl_report_end(session, nil, nil)
        self.module = module

        var bits: UnsafePointer<UInt8>?
        var vaddr: GElf_Addr = 0
        let length = dwfl_module_build_id(module, &bits, &vaddr)
        if length > 0, let bits {
            let digits = Array("0123456789abcdef".utf8)
            buildID = String(decoding: (0 ..< Int(length)).flatMap { [digits[Int(bits[$0] >> 4)], digits[Int(bits[$0] & 15)]] }, as: UTF8.self)
        } else {
            buildID = nil
        }
        var dwarfBias: Dwarf_Addr = 0
        dwarf = dwfl_module_getdwarf(module, &dwarfBias)
        bias = dwarfBias
        indexUnits(libdw: unitsFromLibdw)
        indexSymbols()
    }

    deinit {
        dwfl_end(session)
        callbacks.deallocate()
    }

    // MARK: lookup

    /// The frames at a file address (the ELF virtual address: runtime address minus the load bias), innermost
    /// first. Empty when nothing is known there.
    public func symbolize(_ address: UInt64) -> [SymbolizedFrame] {
        rawFrames(address).map { frame in
            return SymbolizedFrame(mangledName: frame.name >= 0 ? names[Int(frame.name)].mangled : "",
                                   file: frame.file >= 0 ? files[Int(frame.file)].text : nil, line: Int(frame.line),
                                   column: Int(frame.column), inlined: frame.inlined, offset: frame.offset)
        }
    }

    /// Appends llvm-symbolizer's text for an address: per frame, the function, then `file:line:column`.
    public func appendText(_ address: UInt64, to out: inout [UInt8]) {
        let frames = rawFrames(address)
        if frames.isEmpty {
            out.append(contentsOf: "??\n??:0:0\n".utf8)
        }
        for frame in frames {
            if frame.name >= 0 { out.append(contentsOf: display(frame.name)) } else { out.append(contentsOf: "??".utf8) }
            out.append(10)
            if frame.file >= 0 { out.append(contentsOf: files[Int(frame.file)].bytes) } else { out.append(contentsOf: "??".utf8) }
            out.append(58)
            appendDecimal(Int(frame.line), to: &out)
            out.append(58)
            appendDecimal(Int(frame.column), to: &out)
            out.append(10)
        }
        out.append(10)
    }

    func rawFrames(_ address: UInt64) -> [RawFrame] {
        let symbol = symbolAt(address)
        guard dwarf != nil, let unitIndex = unitAt(address &- bias) else {
            guard let symbol else { return [] }
            return [RawFrame(name: nameID(symbol.name), file: objectFile(symbol.object), line: 0, column: 0, inlined: false,
                             offset: address - symbol.address)]
        }
        load(unitIndex)
        let dwarfAddress = address &- bias
        let location = lineAt(dwarfAddress, unitIndex)
        guard let function = functionAt(dwarfAddress, unitIndex) else {
            return [RawFrame(name: symbol.map { nameID($0.name) } ?? -1, file: location?.file ?? symbol.map { objectFile($0.object) } ?? -1,
                             line: location?.line ?? 0, column: location?.column ?? 0, inlined: false,
                             offset: symbol.map { address - $0.address })]
        }
        let details = functionDetails(function.die, unitIndex)
        // The innermost inlined call containing the address, and its ancestry.
        var innermost: Int?
        for (index, call) in details.calls.enumerated() where call.contains(dwarfAddress) {
            if innermost == nil || call.depth > details.calls[innermost!].depth { innermost = index }
        }
        // Innermost first: each inlined call's location is its caller's call site.
        var frames: [RawFrame] = []
        var file = location?.file ?? -1, line = location?.line ?? 0, column = location?.column ?? 0
        var current = innermost
        while let index = current {
            let call = details.calls[index]
            frames.append(RawFrame(name: call.name, file: file, line: line, column: column, inlined: true, offset: nil))
            (file, line, column) = call.site
            current = call.parent
        }
        // The outermost frame takes the symbol table's name, as llvm-symbolizer does.
        let name = symbol != nil && symbol!.name.pointee != 0 ? nameID(symbol!.name) : details.name
        frames.append(RawFrame(name: name, file: file, line: line, column: column, inlined: false,
                               offset: dwarfAddress - function.low))
        return frames
    }

    /// The function name alone, from the symbol table: for code without debug info.
    public func symbolName(_ address: UInt64) -> String? { symbolAt(address).map { String(cString: $0.name) } }

    // MARK: compile units

    /// The compile-unit table: each range and the offset of its unit's DIE, by start.
    var unitTable: [(low: UInt64, high: UInt64, dieOffset: UInt64)] {
        unitRanges.map { ($0.low, $0.high, units[$0.unit].offset) }
    }

    private func indexUnits(libdw: Bool) {
        guard let dwarf else { return }
        let executable = executableRanges()
        func add(_ dieOffset: Dwarf_Off, _ ranges: [(low: UInt64, high: UInt64)]) {
            // Code the linker dropped keeps ranges at address 0: only ranges inside executable sections count.
            let kept = ranges.filter { range in executable.contains { range.low + bias >= $0.0 && range.low + bias < $0.1 } }
            guard !kept.isEmpty else { return }  // type-only and module-skeleton units
            for range in kept { unitRanges.append(UnitRange(low: range.low, high: range.high, unit: units.count)) }
            units.append(Unit(offset: dieOffset))
        }
        if !libdw, let elf = dwarf_getelf(dwarf), var reader = UnitRangeReader(elf), let read = reader.units() {
            for unit in read { add(unit.dieOffset, unit.ranges) }
        } else {
            var previous: UnsafeMutablePointer<Dwarf_Die>?
            var unitBias: Dwarf_Addr = 0
            while let die = dwfl_module_nextcu(module, previous, &unitBias) {
                previous = die
                var ranges: [(low: UInt64, high: UInt64)] = []
                var base: Dwarf_Addr = 0, start: Dwarf_Addr = 0, end: Dwarf_Addr = 0
                var offset = dwarf_ranges(die, 0, &base, &start, &end)
                while offset > 0 {
                    if end > start { ranges.append((start, end)) }
                    offset = dwarf_ranges(die, offset, &base, &start, &end)
                }
                add(dwarf_dieoffset(die), ranges)
            }
        }
        let ranges = unitRanges
        unitRanges = stableOrder(ranges.count) { ranges[$0].low }.map { ranges[$0] }
    }

    /// [start, end) of each section holding code, in file addresses.
    private func executableRanges() -> [(UInt64, UInt64)] {
        var elfBias: GElf_Addr = 0
        guard let elf = dwfl_module_getelf(module, &elfBias) else { return [] }
        var ranges: [(UInt64, UInt64)] = []
        var section = elf_nextscn(elf, nil)
        while let current = section {
            var header = GElf_Shdr()
            if gelf_getshdr(current, &header) != nil, header.sh_flags & UInt64(SHF_EXECINSTR) != 0, header.sh_size > 0 {
                ranges.append((header.sh_addr &+ elfBias, header.sh_addr &+ elfBias &+ header.sh_size))
            }
            section = elf_nextscn(elf, current)
        }
        return ranges
    }

    private func unitAt(_ address: UInt64) -> Int? {
        // Ranges may overlap (units of one module).
        Self.containing(address, in: unitRanges, lookBack: 8, start: \.low, end: \.high)?.unit
    }

    /// In `items` sorted by start: the index just past the last item that starts at or before `address`.
    private static func partition<Items: RandomAccessCollection>(_ address: UInt64, in items: Items,
                                                                start: (Items.Element) -> UInt64) -> Int where Items.Index == Int {
        var low = items.startIndex, high = items.endIndex
        while low < high {
            let middle = (low + high) / 2
            if start(items[middle]) <= address { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The nearest of the last `lookBack` items starting at or before `address` that also ends after it
    /// (ranges can overlap or nest).
    private static func containing<Items: RandomAccessCollection>(
        _ address: UInt64, in items: Items, lookBack: Int, start: (Items.Element) -> UInt64, end: (Items.Element) -> UInt64
    ) -> Items.Element? where Items.Index == Int {
        let past = partition(address, in: items, start: start)
        return items[max(items.startIndex, past - lookBack) ..< past].last { address < end($0) }
    }

    private func dieAt(_ offset: Dwarf_Off) -> Dwarf_Die? {
        var die = Dwarf_Die()
        return dwarf_offdie(dwarf, offset, &die) != nil ? die : nil
    }

    /// Reads a unit's line table and function ranges.
    private func load(_ index: Int) {
        guard !units[index].loaded, var unitDie = dieAt(units[index].offset) else { return }
        units[index].loaded = true
        units[index].directory = stringAttribute(&unitDie, Int32(DW_AT_comp_dir))
        var files: OpaquePointer?
        var fileCount = 0
        if dwarf_getsrcfiles(&unitDie, &files, &fileCount) == 0 {
            units[index].files = (0 ..< fileCount).map { position in
                fileID(dwarf_filesrc(files, position, nil, nil).map { normalize(String(cString: $0), directory: units[index].directory) })
            }
        }
        var lines: OpaquePointer?
        var count = 0
        if dwarf_getsrclines(&unitDie, &lines, &count) == 0 {
            var byPointer = IntMap()  // libdw hands out each file name once
            units[index].rows.reserveCapacity(count)
            for position in 0 ..< count {
                guard let row = dwarf_onesrcline(lines, position) else { continue }
                var address: Dwarf_Addr = 0, line: Int32 = 0, column: Int32 = 0
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
                units[index].rows.append(LineRow(address: address, file: file, line: line, column: column, endSequence: end))
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
                var base: Dwarf_Addr = 0, start: Dwarf_Addr = 0, end: Dwarf_Addr = 0
                var offset = dwarf_ranges(&die, 0, &base, &start, &end)
                while offset > 0 {
                    if end > start { functions.append((start, end, dwarf_dieoffset(&die))) }
                    offset = dwarf_ranges(&die, offset, &base, &start, &end)
                }
            }
            // Swift nests closures' subprograms inside their function's; inlined code is walked per lookup.
            if tag == DW_TAG_subprogram || tag == DW_TAG_module || tag == DW_TAG_namespace || tag == DW_TAG_structure_type
                || tag == DW_TAG_class_type || tag == DW_TAG_enumeration_type || tag == DW_TAG_union_type
                || tag == DW_TAG_lexical_block {
                var nested = Dwarf_Die()
                if dwarf_child(&die, &nested) == 0 { pending.append(nested) }
            }
        }
        functions.sort { ($0.0, $1.1) < ($1.0, $0.1) }
        units[index].functions = functions.map { (low: $0.0, high: $0.1, die: $0.2) }
    }

    private func functionAt(_ address: UInt64, _ unit: Int) -> (low: UInt64, high: UInt64, die: Dwarf_Off)? {
        Self.containing(address, in: units[unit].functions, lookBack: 16, start: \.low, end: \.high)
    }

    /// The row with the greatest address not above `address`, as llvm-symbolizer picks it; none past the end of
    /// a sequence.
    private func lineAt(_ address: UInt64, _ unit: Int) -> (file: Int32, line: Int32, column: Int32)? {
        let rows = units[unit].rows
        let past = Self.partition(address, in: rows, start: \.address)
        guard past > 0, !rows[past - 1].endSequence else { return nil }
        let row = rows[past - 1]
        return (row.file, row.line, row.column)
    }

    /// An inlined call inside a function: its address ranges, name, call site, and the inlined call it sits in.
    private struct InlinedCall {
        var ranges: [(UInt64, UInt64)]
        var parent: Int?
        var depth: Int
        var name: Int32
        var site: (file: Int32, line: Int32, column: Int32)

        func contains(_ address: UInt64) -> Bool {
            for range in ranges where address >= range.0 && address < range.1 { return true }
            return false
        }
    }

    /// A function's name and inlined calls, read from DWARF on its first lookup.
    private struct FunctionDetails {
        var name: Int32
        var calls: [InlinedCall]
    }

    /// By DIE offset: an index into `knownFunctions`.
    private var functionCache = IntMap()
    private var knownFunctions: [FunctionDetails] = []

    /// Like llvm-symbolizer, the innermost inlined call whose own ranges contain an address wins, and its chain
    /// is its ancestry: enclosing blocks' and calls' ranges need not cover it (optimized code often breaks that).
    private func functionDetails(_ offset: Dwarf_Off, _ unit: Int) -> FunctionDetails {
        if let known = functionCache[Int(truncatingIfNeeded: offset)] { return knownFunctions[Int(known)] }
        var details = FunctionDetails(name: -1, calls: [])
        if var function = dieAt(offset) {
            details.name = nameID(linkageName(&function))
            // (die, enclosing inlined call, depth), walked depth-first through blocks and inlined calls.
            var pending: [PendingDie] = []
            var child = Dwarf_Die()
            if dwarf_child(&function, &child) == 0 { pending.append(PendingDie(die: child, parent: -1, depth: 1)) }
            while let next = pending.popLast() {
                var die = next.die
                let parent = next.parent >= 0 ? next.parent : nil, depth = next.depth
                var sibling = Dwarf_Die()
                if dwarf_siblingof(&die, &sibling) == 0 { pending.append(PendingDie(die: sibling, parent: next.parent, depth: depth)) }
                let tag = dwarf_tag(&die)
                var enclosing = parent
                if tag == DW_TAG_inlined_subroutine {
                    var ranges: [(UInt64, UInt64)] = []
                    var base: Dwarf_Addr = 0, start: Dwarf_Addr = 0, end: Dwarf_Addr = 0
                    var position = dwarf_ranges(&die, 0, &base, &start, &end)
                    while position > 0 {
                        if end > start { ranges.append((start, end)) }
                        position = dwarf_ranges(&die, position, &base, &start, &end)
                    }
                    details.calls.append(InlinedCall(ranges: ranges, parent: parent, depth: depth,
                                                     name: nameID(linkageName(&die)), site: callSite(&die, unit)))
                    enclosing = details.calls.count - 1
                }
                if tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block {
                    var nested = Dwarf_Die()
                    if dwarf_child(&die, &nested) == 0 { pending.append(PendingDie(die: nested, parent: enclosing ?? -1, depth: depth + 1)) }
                }
            }
        }
        knownFunctions.append(details)
        functionCache[Int(truncatingIfNeeded: offset)] = Int32(knownFunctions.count - 1)
        return details
    }

    private func linkageName(_ die: inout Dwarf_Die) -> UnsafePointer<CChar>? {
        var attribute = Dwarf_Attribute()
        for name in [DW_AT_linkage_name, DW_AT_MIPS_linkage_name] {
            if dwarf_attr_integrate(&die, UInt32(name), &attribute) != nil, let text = dwarf_formstring(&attribute) {
                return text
            }
        }
        return dwarf_diename(&die)
    }

    private func callSite(_ die: inout Dwarf_Die, _ unit: Int) -> (Int32, Int32, Int32) {
        var attribute = Dwarf_Attribute()
        var value: Dwarf_Word = 0
        var file: Int32 = -1
        // The call file indexes the unit's file table (libdw's table covers DWARF 4 and 5 numbering alike).
        if dwarf_attr(&die, UInt32(DW_AT_call_file), &attribute) != nil, dwarf_formudata(&attribute, &value) == 0,
           value < UInt64(units[unit].files.count) {
            file = units[unit].files[Int(value)]
        }
        var line: Int32 = 0, column: Int32 = 0
        if dwarf_attr(&die, UInt32(DW_AT_call_line), &attribute) != nil, dwarf_formudata(&attribute, &value) == 0 { line = Int32(truncatingIfNeeded: value) }
        if dwarf_attr(&die, UInt32(DW_AT_call_column), &attribute) != nil, dwarf_formudata(&attribute, &value) == 0 { column = Int32(truncatingIfNeeded: value) }
        return (file, line, column)
    }

    private func stringAttribute(_ die: UnsafeMutablePointer<Dwarf_Die>, _ name: Int32) -> String? {
        var attribute = Dwarf_Attribute()
        guard dwarf_attr(die, UInt32(name), &attribute) != nil, let text = dwarf_formstring(&attribute) else { return nil }
        return String(cString: text)
    }

    /// Joins a relative path to the compile directory and collapses `//`, as llvm-symbolizer prints them.
    private func normalize(_ path: String, directory: String?) -> String {
        var bytes = Array(path.utf8)
        if bytes.first != 47, let directory, !directory.isEmpty, bytes.first != 60 {  // relative, not `<compiler-generated>`
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

    // MARK: symbol table

    private func indexSymbols() {
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
            let type = Int32(symbol.st_info & 0xF), binding = Int32(symbol.st_info >> 4)
            if type == STT_FILE {
                objects.append(ObjectName(name: name))
                object = Int32(objects.count - 1)
                continue
            }
            guard type == STT_FUNC || type == STT_NOTYPE, symbol.st_shndx != UInt16(SHN_UNDEF), address != 0 else { continue }
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
    private struct MainSymbolTable {
        let section: OpaquePointer
        let data: UnsafeMutablePointer<Elf_Data>
        let names: UnsafeRawBufferPointer
        let bias: UInt64
        let count: Int

        init?(_ module: OpaquePointer) {
            var bias: GElf_Addr = 0
            guard let elf = dwfl_module_getelf(module, &bias) else { return nil }
            var file = GElf_Ehdr()
            guard gelf_getehdr(elf, &file) != nil, file.e_type == UInt16(ET_EXEC) || file.e_type == UInt16(ET_DYN) else { return nil }
            var section = elf_nextscn(elf, nil)
            while let current = section {
                var header = GElf_Shdr()
                if gelf_getshdr(current, &header) != nil, header.sh_type == SHT_SYMTAB {
                    guard let data = elf_getdata(current, nil), let strings = elf_getscn(elf, Int(header.sh_link)),
                          let stringData = elf_getdata(strings, nil), let base = stringData.pointee.d_buf else { return nil }
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
                  let base = names.baseAddress, memchr(base + Int(symbol.st_name), 0, names.count - Int(symbol.st_name)) != nil
            else { return nil }
            let name = base + Int(symbol.st_name)
            address = symbol.st_shndx == UInt16(SHN_ABS) ? symbol.st_value : symbol.st_value &+ bias
            return name.assumingMemoryBound(to: CChar.self)
        }
    }

    /// The file of a symbol-only frame: the object file its symbol came from, when the table says.
    private func objectFile(_ index: Int32) -> Int32 {
        guard index >= 0 else { return -1 }
        if let known = objects[Int(index)].file { return known }
        let file = fileID(String(cString: objects[Int(index)].name))
        objects[Int(index)].file = file
        return file
    }

    private func symbolAt(_ address: UInt64) -> Symbol? {
        Self.containing(address, in: symbols, lookBack: 4, start: \.address, end: \.end)
    }
}
