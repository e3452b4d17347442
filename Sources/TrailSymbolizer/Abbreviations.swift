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
        /// Otherwise, in such a unit, how to step over its attributes: into `steps`; empty when a form is one
        /// `Step` has no way for.
        var steps: Range<Int> = 0 ..< 0
    }

    /// One step over attributes: skip a number of bytes (a run of fixed-size forms), or a form whose size is
    /// in its bytes.
    enum Step: Equatable {
        case skip(Int)
        case uleb, sleb, string
        /// A block whose length is a number of so many bytes before it (0: a ULEB128).
        case block(lengthSize: Int)
    }

    /// An attribute: its name and form (and an implicit_const's value); its size in the common unit shape
    /// (-1: it varies), and which field of a `DIEReader.Site` it is (-1: none), worked out once here for the
    /// walk that decodes thousands of subprograms and inlined calls.
    struct Spec {
        var name: UInt64, form: UInt64, implicit: UInt64
        var size: Int8 = -1, siteField: Int8 = -1
    }

    /// By code. Codes are small and nearly dense.
    private(set) var entries: [Entry] = []
    private(set) var specs: [Spec] = []
    private(set) var steps: [Step] = []

    /// nil for a table that is damaged or whose codes are not small.
    init?(_ abbrev: ByteReader, at offset: UInt64) {
        var reader = abbrev
        reader.position = Int(clamping: offset)
        // Built in locals and stored at the end: appending to stored properties of a value being initialized
        // checked their uniqueness at every attribute.
        var entries: [Entry] = []
        var specs: [Spec] = []
        var steps: [Step] = []
        specs.reserveCapacity(256)
        while true {
            let code = reader.uleb()
            guard !reader.failed else { return nil }
            if code == 0 { break }
            guard code < 1 << 16 else { return nil }
            let tag = reader.uleb()
            let children = reader.fixed(1) != 0
            let first = specs.count
            var size = 0
            while true {
                let name = reader.uleb()
                let form = reader.uleb()
                let implicit = form == 0x21 ? UInt64(bitPattern: reader.sleb()) : 0
                guard !reader.failed else { return nil }
                if name == 0, form == 0 { break }
                let bytes = Self.fixedSize(form)
                size = bytes < 0 || size < 0 ? -1 : size + bytes
                specs.append(
                    Spec(
                        name: name, form: form, implicit: implicit, size: Int8(bytes),
                        siteField: Int8(DIEReader.Site.field(name))))
            }
            // Codes are usually 1, 2, 3...: one at a time is the common case (a repeated element is not cheap).
            while Int(code) >= entries.count { entries.append(Entry()) }
            if entries[Int(code)].tag == 0 {  // the first definition of a code counts, as libdw has it
                let firstStep = steps.count
                if size < 0, !Self.appendSteps(specs[first...], to: &steps) { steps.removeSubrange(firstStep...) }
                entries[Int(code)] = Entry(
                    tag: tag, hasChildren: children, specs: first ..< specs.count, fixedSize: size,
                    steps: firstStep ..< steps.count)
            }
        }
        self.entries = entries
        self.specs = specs
        self.steps = steps
    }

    /// Appends the steps over an entry's attributes, runs of fixed-size forms joined; false for a form with none.
    private static func appendSteps(_ attributes: ArraySlice<Spec>, to steps: inout [Step]) -> Bool {
        let first = steps.count
        for spec in attributes {
            let step: Step
            switch spec.form {
            case _ where spec.size >= 0:
                if steps.count > first, case .skip(let run) = steps[steps.count - 1] {
                    steps[steps.count - 1] = .skip(run + Int(spec.size))
                    continue
                }
                step = .skip(Int(spec.size))
            // udata, ref_udata, strx, addrx, loclistx, rnglistx, GNU_addr_index, GNU_str_index
            case 0x0f, 0x15, 0x1a, 0x1b, 0x22, 0x23, 0x1f01, 0x1f02: step = .uleb
            case 0x0d: step = .sleb
            case 0x08: step = .string
            case 0x0a: step = .block(lengthSize: 1)
            case 0x03: step = .block(lengthSize: 2)
            case 0x04: step = .block(lengthSize: 4)
            case 0x09, 0x18: step = .block(lengthSize: 0)  // block, exprloc
            default: return false  // indirect, and forms not known here
            }
            steps.append(step)
        }
        return true
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

    /// Calls `body` with unsafe views of the table, valid during the call.
    func withUnsafeViews<Result>(
        _ body: ((UnsafeBufferPointer<Entry>, UnsafeBufferPointer<Spec>, UnsafeBufferPointer<Step>)) -> Result
    ) -> Result {
        entries.withUnsafeBufferPointer { entries in
            specs.withUnsafeBufferPointer { specs in
                steps.withUnsafeBufferPointer { steps in body((entries, specs, steps)) }
            }
        }
    }

    func entry(_ code: UInt64) -> Entry? {
        code < entries.count && entries[Int(code)].tag != 0 ? entries[Int(code)] : nil
    }
}
