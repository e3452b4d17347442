import Testing

@testable import TrailSymbolizer

/// DWARF bytes made by hand for what no compiler here writes: forms given indirectly, and headers whose fields
/// run past their unit. The readers must read them as libdw does or refuse them, never trap.
@Suite struct HostileDWARFTests {
    /// One abbreviation, a subprogram whose high_pc is DW_FORM_indirect, and a DIE whose high_pc says it is an
    /// address (DW_FORM_addr) after all: it is read as the end, not as a length.
    @Test func anIndirectFormIsReadAsTheFormItNames() {
        let abbreviations: [UInt8] = [1, 0x2e, 0, 0x11, 0x01, 0x12, 0x16, 0, 0, 0]
        let info: [UInt8] = [1] + le(0x40_1000) + [0x01] + le(0x40_1100) + [0]
        abbreviations.withUnsafeBytes { abbrev in
            info.withUnsafeBytes { bytes in
                guard let table = Abbreviations(ByteReader(abbrev), at: 0) else {
                    Issue.record("the table did not decode")
                    return
                }
                var unit = DIEReader.Unit()
                unit.end = bytes.count
                unit.version = 4
                var site = DIEReader.Site()
                let found = table.withUnsafeViews { views in
                    var cursor = DIECursor(info: bytes, at: 0, unit: unit, table: views)
                    return cursor.next(decoding: 0x2e, 0, into: &site)
                }
                #expect(found?.decoded == true)
                #expect(site.extent.low.form == 0x01 && site.extent.low.value == 0x40_1000)
                #expect(site.extent.high.form == 0x01, "the form the attribute has, not DW_FORM_indirect")
                #expect(site.extent.high.value == 0x40_1100)
            }
        }
        var form: UInt64 = 0x16
        let bytes: [UInt8] = [0x0b, 42]  // indirect: data1, 42
        let value = bytes.withUnsafeBytes { raw -> UInt64? in
            var reader = ByteReader(raw)
            return reader.attributeValue(&form, implicit: 0, version: 5, offsetSize: 4, addressSize: 8)
        }
        #expect(value == 42 && form == 0x0b)
    }

    /// A DWARF 5 line program whose unit length (8) ends inside its own header: the header's fields are read on
    /// into the next unit's bytes, and the reader must refuse the program rather than trap on a negative length.
    @Test func aLineHeaderLongerThanItsUnitIsRefused() {
        var section: [UInt8] = le32(8) + [5, 0, 8, 0] + le32(0)  // unit_length, version, address and selector sizes
        section += [1, 1, 1, 0xfb, 14, 13] + [UInt8](repeating: 0, count: 12)  // the next "unit": header fields
        section += [1, 1, 0x08, 1] + Array("/tmp\0".utf8) + [1, 1, 0x08, 1] + Array("a.swift\0".utf8)
        section += [UInt8](repeating: 0, count: 16)
        let none: [UInt8] = [0]
        section.withUnsafeBytes { line in
            none.withUnsafeBytes { empty in
                let program = LineProgramReader(
                    ByteReader(line), offset: 0, addressSize: 8, compDir: "/tmp", str: ByteReader(empty),
                    lineStr: ByteReader(empty))
                #expect(program == nil)
            }
        }
    }

    private func le(_ value: UInt64) -> [UInt8] { (0 ..< 8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    private func le32(_ value: UInt32) -> [UInt8] { (0 ..< 4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
}
