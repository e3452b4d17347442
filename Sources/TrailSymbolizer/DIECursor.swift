/// Steps through one unit's DIEs for `UnitWalk`, over unsafe views of `.debug_info` and of the unit's
/// abbreviation table. A batch's walks step over every DIE of every unit it touches, and a step through
/// `DIEReader` spent most of its time on the way to the bytes (the table looked up by index, optional results,
/// copies of entries). Units of the common shape (DWARF 3 or later, 4-byte offsets, 8-byte addresses) use the
/// table's precomputed sizes and steps; others go attribute by attribute, by form.
struct DIECursor {
    /// A step's DIE: tag 0 for a null entry; `decoded` when its site was read.
    struct Found { var tag: UInt64, hasChildren: Bool, decoded: Bool }

    private let bytes: UnsafeRawBufferPointer
    private let end: Int
    /// Where the next DIE starts.
    private(set) var position: Int
    private let entries: UnsafeBufferPointer<Abbreviations.Entry>
    private let specs: UnsafeBufferPointer<Abbreviations.Spec>
    private let steps: UnsafeBufferPointer<Abbreviations.Step>
    private let unit: DIEReader.Unit
    private let common: Bool

    /// The views must outlive the cursor (`Abbreviations.withUnsafeViews`).
    init(
        info: UnsafeRawBufferPointer, at position: Int, unit: DIEReader.Unit,
        table: (
            UnsafeBufferPointer<Abbreviations.Entry>, UnsafeBufferPointer<Abbreviations.Spec>,
            UnsafeBufferPointer<Abbreviations.Step>
        )
    ) {
        bytes = info
        end = min(unit.end, info.count)
        self.position = position
        (entries, specs, steps) = table
        self.unit = unit
        common = unit.offsetSize == 4 && unit.addressSize == 8 && unit.version >= 3
    }

    /// Steps over the next DIE, attributes decoded no further than to skip them, except that a DIE whose tag is
    /// `wanted` or `alsoWanted` has its site decoded into `site`; nil for what cannot be read.
    mutating func next(decoding wanted: UInt64, _ alsoWanted: UInt64, into site: inout DIEReader.Site) -> Found? {
        guard let code = uleb() else { return nil }
        if code == 0 { return Found(tag: 0, hasChildren: false, decoded: false) }
        guard code < UInt64(entries.count), entries[Int(code)].tag != 0 else { return nil }
        let entry = entries[Int(code)]
        if entry.tag == wanted || entry.tag == alsoWanted {
            site = DIEReader.Site()
            guard decode(entry, into: &site) else { return nil }
            return Found(tag: entry.tag, hasChildren: entry.hasChildren, decoded: true)
        }
        guard skip(entry) else { return nil }
        return Found(tag: entry.tag, hasChildren: entry.hasChildren, decoded: false)
    }

    @inline(__always)
    private mutating func uleb() -> UInt64? { ByteReader.uleb(bytes, at: &position, end: end) }

    private mutating func skip(_ entry: Abbreviations.Entry) -> Bool {
        if common, entry.fixedSize >= 0 {
            position += entry.fixedSize
            return position <= end
        }
        if common, !entry.steps.isEmpty { return step(over: entry.steps) }
        for index in entry.specs where attribute(specs[index]) == nil { return false }
        return true
    }

    /// Steps over attributes by an entry's precomputed steps.
    private mutating func step(over entrySteps: Range<Int>) -> Bool {
        for index in entrySteps {
            switch steps[index] {
            case .skip(let count):
                position += count
            case .uleb, .sleb:
                while position < end, bytes[position] & 0x80 != 0 { position += 1 }
                position += 1
            case .string:
                while position < end, bytes[position] != 0 { position += 1 }
                position += 1
            case .block(let lengthSize):
                var length = 0
                if lengthSize == 0 {
                    guard let value = uleb(), value < UInt64(end) else { return false }
                    length = Int(value)
                } else {
                    guard end - position >= lengthSize else { return false }
                    for byte in 0 ..< lengthSize { length |= Int(bytes[position + byte]) << (8 * byte) }
                    position += lengthSize
                }
                guard length <= end - position else { return false }
                position += length
            }
            guard position <= end else { return false }
        }
        return true
    }

    /// Reads a DIE's site: in the common shape, fixed-size values loaded in place; the rest by form.
    private mutating func decode(_ entry: Abbreviations.Entry, into site: inout DIEReader.Site) -> Bool {
        for index in entry.specs {
            let spec = specs[index]
            let size = Int(spec.size)
            guard common, size >= 0 else {
                guard let (form, value) = attribute(spec) else { return false }
                site.set(spec.siteField, DIEReader.Attribute(form: form, value: value))
                continue
            }
            guard end - position >= size else { return false }
            if spec.siteField >= 0 {
                var value: UInt64
                switch size {
                case 0: value = spec.form == 0x21 ? spec.implicit : 1  // implicit_const, flag_present
                case 1: value = UInt64(bytes[position])
                case 2:
                    value = UInt64(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt16.self)))
                case 4:
                    value = UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self)))
                case 8: value = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
                default:  // strx3, addrx3, data16
                    value = 0
                    for byte in 0 ..< min(size, 8) { value |= UInt64(bytes[position + byte]) << (8 * byte) }
                }
                site.set(spec.siteField, DIEReader.Attribute(form: spec.form, value: value))
            }
            position += size
        }
        return true
    }

    /// One attribute's form (an indirect one's actual form) and value, as `ByteReader.attributeValue` reads
    /// them; nil when it cannot.
    private mutating func attribute(_ spec: Abbreviations.Spec) -> (form: UInt64, value: UInt64)? {
        var reader = ByteReader(bytes)
        reader.position = position
        var form = spec.form
        guard
            let value = reader.attributeValue(
                &form, implicit: spec.implicit, version: unit.version, offsetSize: unit.offsetSize,
                addressSize: unit.addressSize), !reader.failed, reader.position <= end
        else { return nil }
        position = reader.position
        return (form, value)
    }
}
