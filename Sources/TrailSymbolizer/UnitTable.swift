import CLibdw

#if canImport(Glibc)
import Glibc
#endif

/// The compile-unit index, built once per file: each unit with code, and its address ranges sorted by start, for
/// finding the unit of an address. Units are numbered in `.debug_info` order.
struct UnitTable {
    struct Range { var low: UInt64, high: UInt64, unit: Int }

    /// Each unit's DIE offset, as `dwarf_dieoffset` gives it.
    private(set) var offsets: [Dwarf_Off] = []
    /// Each unit's header offset, when `UnitRangeReader` read them (else empty).
    private(set) var starts: [UInt64] = []
    private(set) var ranges: [Range] = []

    init() {}

    /// Reads the units with `UnitRangeReader`, or with libdw's walk when asked to (`libdw`, for tests that
    /// compare) or when the reader does not understand the file.
    init(module: OpaquePointer, dwarf: OpaquePointer, bias: UInt64, sections: DwarfSections?, libdw: Bool) {
        let executable = Self.executableRanges(module)
        func add(_ dieOffset: Dwarf_Off, _ found: [(low: UInt64, high: UInt64)]) -> Bool {
            // Code the linker dropped keeps ranges at address 0: only ranges inside executable sections count.
            let kept = found.filter { range in
                executable.contains { range.low + bias >= $0.0 && range.low + bias < $0.1 }
            }
            guard !kept.isEmpty else { return false }  // type-only and module-skeleton units
            for range in kept { ranges.append(Range(low: range.low, high: range.high, unit: offsets.count)) }
            offsets.append(dieOffset)
            return true
        }
        if !libdw, let sections, var reader = UnitRangeReader(sections), let read = reader.units() {
            for unit in read where add(unit.dieOffset, unit.ranges) { starts.append(unit.start) }
        } else {
            var previous: UnsafeMutablePointer<Dwarf_Die>?
            var unitBias: Dwarf_Addr = 0
            while let die = dwfl_module_nextcu(module, previous, &unitBias) {
                previous = die
                _ = add(dwarf_dieoffset(die), LibdwDIE.ranges(die))
            }
        }
        let unsorted = ranges
        ranges = stableOrder(unsorted.count) { unsorted[$0].low }.map { unsorted[$0] }
    }

    var isEmpty: Bool { offsets.isEmpty }

    /// Each range and the offset of its unit's DIE, by start.
    var table: [(low: UInt64, high: UInt64, dieOffset: UInt64)] {
        ranges.map { ($0.low, $0.high, offsets[$0.unit]) }
    }

    /// The unit holding a DWARF address.
    func unit(at address: UInt64) -> Int? {
        // Ranges may overlap (units of one module).
        AddressSearch.containing(address, in: ranges, lookBack: 8, start: \.low, end: \.high)?.unit
    }

    /// [start, end) of each section holding code, in file addresses.
    private static func executableRanges(_ module: OpaquePointer) -> [(UInt64, UInt64)] {
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
}
