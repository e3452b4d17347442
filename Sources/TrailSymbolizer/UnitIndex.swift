import CLibdw

#if canImport(Glibc)
import Glibc
#endif

/// The compile-unit index: each unit's address ranges, sorted, for finding the unit of an address.
extension ELFImage {
    struct UnitRange { var low: UInt64, high: UInt64, unit: Int }

    /// The compile-unit table: each range and the offset of its unit's DIE, by start.
    var unitTable: [(low: UInt64, high: UInt64, dieOffset: UInt64)] {
        unitRanges.map { ($0.low, $0.high, units[$0.unit].offset) }
    }

    func indexUnits(libdw: Bool) {
        guard let dwarf else { return }
        let executable = executableRanges()
        func add(_ dieOffset: Dwarf_Off, _ ranges: [(low: UInt64, high: UInt64)]) {
            // Code the linker dropped keeps ranges at address 0: only ranges inside executable sections count.
            let kept = ranges.filter { range in
                executable.contains { range.low + bias >= $0.0 && range.low + bias < $0.1 }
            }
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
                var base: Dwarf_Addr = 0
                var start: Dwarf_Addr = 0
                var end: Dwarf_Addr = 0
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
    func executableRanges() -> [(UInt64, UInt64)] {
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

    func unitAt(_ address: UInt64) -> Int? {
        // Ranges may overlap (units of one module).
        Self.containing(address, in: unitRanges, lookBack: 8, start: \.low, end: \.high)?.unit
    }
}
