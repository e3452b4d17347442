/// One abbreviation table of `.debug_abbrev`, decoded whole: by code, each entry's tag, whether its DIEs have
/// children, and its attributes' names and forms. (`AbbreviationTable` instead finds one entry, decoding no
/// further than it must, for reading only each unit's first DIE.)
struct Abbreviations {
    struct Entry {
        var tag: UInt64 = 0
        var hasChildren = false
        /// Into `specs`; empty for a code the table does not define (tag 0).
        var specs: Range<Int> = 0 ..< 0
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
                entries[Int(code)] = Entry(tag: tag, hasChildren: children, specs: first ..< specs.count)
            }
        }
    }

    func entry(_ code: UInt64) -> Entry? {
        code < entries.count && entries[Int(code)].tag != 0 ? entries[Int(code)] : nil
    }
}
