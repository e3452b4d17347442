import CLibdw

#if canImport(Glibc)
import Glibc
#endif

/// An ELF file opened with libdw, indexed for fast lookups of many addresses: a table of compile-unit address
/// ranges (swiftc emits no `.debug_aranges`, which libdw's own lookups rely on), and per compile unit, built on
/// first use, its line table and its functions. The symbol table answers for code without debug info.
public final class ELFImage {
    public let path: String
    public let buildID: String?
    /// Whether the file has DWARF line information at all (a stripped binary has not).
    public var hasDebugInfo: Bool { dwarf != nil && !units.isEmpty }

    var callbacks: UnsafeMutablePointer<Dwfl_Callbacks>
    let session: OpaquePointer
    let module: OpaquePointer
    let dwarf: OpaquePointer?
    let bias: UInt64
    // Table rows (declared beside the code that fills them) are small structs rather than tuples: each
    // element type of an array is instantiated at run time, and a tuple's costs several times a struct's,
    // which adds up in a one-crash run.
    var units: [Unit] = []
    var unitRanges: [UnitRange] = []
    var symbols: [Symbol] = []
    /// The symbol table's STT_FILE names, and their file numbers once needed.
    var objects: [ObjectName] = []
    let demangler = Demangler.shared

    /// Function names and file paths, interned: frames refer to them by number, and output copies their bytes.
    /// Names are demangled on first output. (Dictionaries here are keyed by String only: a key type's first
    /// use costs a scan of the runtime's conformance records; Int keys go in an `IntMap`.)
    var names: [Name] = []
    var nameIDs = IntMap()
    var files: [File] = []
    var fileIDs: [String: Int32] = [:]

    /// By DIE offset: an index into `knownFunctions`.
    var functionCache = IntMap()
    var knownFunctions: [FunctionDetails] = []

    /// A frame before it becomes public: numbers into the tables above, -1 when unknown.
    struct RawFrame {
        var name: Int32
        var file: Int32
        var line: Int32
        var column: Int32
        var inlined: Bool
        var offset: UInt64?
    }

    /// Where a stripped file's separate debug file is looked for (by build ID, then by `.gnu_debuglink`), in
    /// libdwfl's form: the file's own folder, its `.debug` folder, then these folders.
    /// (A slot holding the C string, as libdwfl takes it: both live as long as the session.)
    let debugSearchPath: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

    public convenience init(path: String, debugDirectories: [String] = []) throws(SymbolizerError) {
        try self.init(path: path, unitsFromLibdw: false, debugDirectories: debugDirectories)
    }

    /// `unitsFromLibdw`: index compile units with libdw's walk, not `UnitRangeReader` (for tests that compare).
    init(path: String, unitsFromLibdw: Bool, debugDirectories: [String] = []) throws(SymbolizerError) {
        self.path = path
        guard access(path, R_OK) == 0 else {
            throw SymbolizerError(description: "\(path): cannot read (\(String(cString: strerror(errno))))")
        }
        debugSearchPath = .allocate(capacity: 1)
        debugSearchPath.initialize(
            to: strdup(([""] + [".debug"] + Self.debugFolders(debugDirectories)).joined(separator: ":")))
        callbacks = .allocate(capacity: 1)
        callbacks.initialize(to: Dwfl_Callbacks())
        callbacks.pointee.find_elf = dwfl_build_id_find_elf
        callbacks.pointee.find_debuginfo = dwfl_standard_find_debuginfo
        callbacks.pointee.section_address = dwfl_offline_section_address
        callbacks.pointee.debuginfo_path = debugSearchPath
        guard let session = dwfl_begin(callbacks) else {
            Self.release(debugSearchPath)
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
            Self.release(debugSearchPath)
            throw SymbolizerError(description: "\(path): not an ELF file libdw can read (\(message))")
        }
        dwfl_report_end(session, nil, nil)
        self.module = module

        var bits: UnsafePointer<UInt8>?
        var vaddr: GElf_Addr = 0
        let length = dwfl_module_build_id(module, &bits, &vaddr)
        if length > 0, let bits {
            let digits = Array("0123456789abcdef".utf8)
            buildID = String(
                decoding: (0 ..< Int(length)).flatMap { [digits[Int(bits[$0] >> 4)], digits[Int(bits[$0] & 15)]] },
                as: UTF8.self)
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
        Self.release(debugSearchPath)
    }

    private static func release(_ slot: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) {
        free(slot.pointee)
        slot.deallocate()
    }

    /// The folders separate debug files are looked for in: those given, then the system's.
    public static func debugFolders(_ given: [String]) -> [String] {
        var folders: [String] = []
        for folder in given + ["/usr/lib/debug"] where !folders.contains(folder) { folders.append(folder) }
        return folders
    }

    /// The file's `.gnu_debuglink` name: the separate debug file it was stripped into, if it says.
    public var debugLink: String? {
        var bias: GElf_Addr = 0
        guard let elf = dwfl_module_getelf(module, &bias) else { return nil }
        var crc: GElf_Word = 0
        return dwelf_elf_gnu_debuglink(elf, &crc).map { String(cString: $0) }
    }

    /// The separate file libdwfl took the DWARF from, when it is not this one.
    public var separateDebugFile: String? {
        var debugFile: UnsafePointer<CChar>?
        _ = dwfl_module_info(module, nil, nil, nil, nil, nil, nil, &debugFile)
        guard let debugFile else { return nil }
        let name = String(cString: debugFile)
        return name == path ? nil : name
    }

    /// Whether the file (or its separate debug file) has a full symbol table, not only the dynamic symbols
    /// that a fully stripped file keeps for the loader.
    public var hasSymbolTable: Bool { MainSymbolTable(module) != nil || separateDebugFile != nil }

    // MARK: lookup

    /// The frames at a file address (the ELF virtual address: runtime address minus the load bias), innermost
    /// first. Empty when nothing is known there.
    public func symbolize(_ address: UInt64) -> [SymbolizedFrame] {
        rawFrames(address).map { frame in
            return SymbolizedFrame(
                mangledName: frame.name >= 0 ? names[Int(frame.name)].mangled : "",
                file: frame.file >= 0 ? files[Int(frame.file)].text : nil, line: Int(frame.line),
                column: Int(frame.column), inlined: frame.inlined, offset: frame.offset)
        }
    }

    func rawFrames(_ address: UInt64) -> [RawFrame] {
        let symbol = symbolAt(address)
        guard dwarf != nil, let unitIndex = unitAt(address &- bias) else {
            guard let symbol else { return [] }
            return [
                RawFrame(
                    name: nameID(symbol.name), file: objectFile(symbol.object), line: 0, column: 0, inlined: false,
                    offset: address - symbol.address)
            ]
        }
        load(unitIndex)
        let dwarfAddress = address &- bias
        let location = lineAt(dwarfAddress, unitIndex)
        guard let function = functionAt(dwarfAddress, unitIndex) else {
            return [
                RawFrame(
                    name: symbol.map { nameID($0.name) } ?? -1,
                    file: location?.file ?? symbol.map { objectFile($0.object) } ?? -1,
                    line: location?.line ?? 0, column: location?.column ?? 0, inlined: false,
                    offset: symbol.map { address - $0.address })
            ]
        }
        let details = functionDetails(function.die, unitIndex)
        // The innermost inlined call containing the address, and its ancestry.
        var innermost: Int?
        for (index, call) in details.calls.enumerated() where call.contains(dwarfAddress) {
            if innermost == nil || call.depth > details.calls[innermost!].depth { innermost = index }
        }
        // Innermost first: each inlined call's location is its caller's call site.
        var frames: [RawFrame] = []
        var file = location?.file ?? -1
        var line = location?.line ?? 0
        var column = location?.column ?? 0
        var current = innermost
        while let index = current {
            let call = details.calls[index]
            frames.append(RawFrame(name: call.name, file: file, line: line, column: column, inlined: true, offset: nil))
            (file, line, column) = call.site
            current = call.parent
        }
        // The outermost frame takes the symbol table's name, as llvm-symbolizer does.
        let name = symbol != nil && symbol!.name.pointee != 0 ? nameID(symbol!.name) : details.name
        frames.append(
            RawFrame(
                name: name, file: file, line: line, column: column, inlined: false,
                offset: dwarfAddress - function.low))
        return frames
    }
}
