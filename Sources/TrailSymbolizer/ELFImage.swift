import CLibdw

#if canImport(Glibc)
import Glibc
#endif

/// An ELF file opened with libdwfl, and the tables that answer lookups of many addresses in it (an
/// `AddressLookup`, built from the file and owned here). This class holds what lives as long as the libdwfl
/// session: the session, the module and the DWARF handle the tables read from.
public final class ELFImage {
    public let path: String
    public let buildID: String?
    /// Whether the file has DWARF line information at all (a stripped binary has not).
    public var hasDebugInfo: Bool { lookup.hasDebugInfo }

    var callbacks: UnsafeMutablePointer<Dwfl_Callbacks>
    let session: OpaquePointer
    let module: OpaquePointer
    /// The tables, and the names and files interned while looking up.
    var lookup: AddressLookup

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
        let dwarf = dwfl_module_getdwarf(module, &dwarfBias)
        let sections = dwarf.flatMap { dwarf_getelf($0) }.flatMap(DwarfSections.init)
        lookup = AddressLookup(
            dwarf: dwarf, bias: dwarfBias,
            units: dwarf.map {
                UnitTable(module: module, dwarf: $0, bias: dwarfBias, sections: sections, libdw: unitsFromLibdw)
            } ?? UnitTable(), symbols: SymbolTable(module: module), reader: sections.flatMap(DIEReader.init))
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

    /// The compile-unit table: each range and the offset of its unit's DIE, by start.
    var unitTable: [(low: UInt64, high: UInt64, dieOffset: UInt64)] { lookup.units.table }

    // MARK: lookup

    /// The frames at a file address (the ELF virtual address: runtime address minus the load bias), innermost
    /// first. Empty when nothing is known there.
    public func symbolize(_ address: UInt64) -> [SymbolizedFrame] {
        lookup.frames(address)
    }

    /// Appends llvm-symbolizer's text for an address: per frame, the function, then `file:line:column`.
    public func appendText(_ address: UInt64, to out: inout [UInt8]) {
        lookup.appendText(address, to: &out)
    }

    /// The same for many addresses at once (nil: a line that is not an address, printed as an unknown one),
    /// which lets a second thread help. `flush` takes `out` whenever it passes 64 KiB.
    public func appendText(_ addresses: [UInt64?], to out: inout [UInt8], flush: (inout [UInt8]) -> Void) {
        lookup.appendText(addresses, to: &out, flush: flush)
    }
}
