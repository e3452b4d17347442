/// One abbreviation table of `.debug_abbrev`, decoded whole: by code, each entry's tag, whether its DIEs have
/// children, and its attributes' names and forms. (`AbbreviationTable` instead finds one entry, decoding no
/// further than it must, for reading only each unit's first DIE.)
struct Abbreviations {
    struct Entry {
        var tag: UInt64 = 0
        var hasChildren = false
        /// Into `specs`; empty for a code the table does not define (tag 0).
        var specs: Range<Int> = 0 ..< 0
        /// The bytes of its attributes when every form has a fixed size, in a unit of DWARF 3 or later with
        /// 4-byte offsets and 8-byte addresses (the common case); else -1.
        var fixedSize = -1
    }

    struct Spec { var name: UInt64, form: UInt64, implicit: UInt64 }

    /// By code. Codes are small and nearly dense.
    private(set) var entries: [Entry] = []
    private(set) var specs: [Spec] = []

    /// nil for a table that is damaged or whose codes are not small.
    init?(_ abbrev: ByteReader, at offset: UInt64) {
        var reader = abbrev
        reader.position = Int(clamping: offset)
        while true {
            let code = reader.uleb()
            guard !reader.failed else { return nil }
            if code == 0 { return }
            guard code < 1 << 16 else { return nil }
            let tag = reader.uleb()
            let children = reader.fixed(1) != 0
            let first = specs.count
            while true {
                let name = reader.uleb()
                let form = reader.uleb()
                let implicit = form == 0x21 ? UInt64(bitPattern: reader.sleb()) : 0
                guard !reader.failed else { return nil }
                if name == 0, form == 0 { break }
                specs.append(Spec(name: name, form: form, implicit: implicit))
            }
            if Int(code) >= entries.count {
                entries.append(contentsOf: repeatElement(Entry(), count: Int(code) + 1 - entries.count))
            }
            if entries[Int(code)].tag == 0 {  // the first definition of a code counts, as libdw has it
                var size = 0
                for spec in specs[first...] {
                    let bytes = Self.fixedSize(spec.form)
                    size = bytes < 0 || size < 0 ? -1 : size + bytes
                }
                entries[Int(code)] = Entry(
                    tag: tag, hasChildren: children, specs: first ..< specs.count, fixedSize: size)
            }
        }
    }

    /// A form's size with 4-byte offsets and 8-byte addresses; -1 when it varies.
    private static func fixedSize(_ form: UInt64) -> Int {
        switch form {
        case 0x19, 0x21: return 0  // flag_present, implicit_const
        case 0x0b, 0x0c, 0x11, 0x25, 0x29: return 1  // data1, flag, ref1, strx1, addrx1
        case 0x05, 0x12, 0x26, 0x2a: return 2  // data2, ref2, strx2, addrx2
        case 0x27, 0x2b: return 3  // strx3, addrx3
        // data4, ref4, ref_sup4, strx4, addrx4, strp, sec_offset, strp_sup, line_strp, ref_addr
        case 0x06, 0x13, 0x1c, 0x28, 0x2c, 0x0e, 0x17, 0x1d, 0x1f, 0x10: return 4
        case 0x01, 0x07, 0x14, 0x20, 0x24: return 8  // addr, data8, ref8, ref_sig8, ref_sup8
        case 0x1e: return 16  // data16
        default: return -1
        }
    }

    func entry(_ code: UInt64) -> Entry? {
        code < entries.count && entries[Int(code)].tag != 0 ? entries[Int(code)] : nil
    }
}
