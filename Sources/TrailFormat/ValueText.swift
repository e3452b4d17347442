/// A recorded value as viewers show it: `30`, `2.5`, `true`, `0x7f00…`, `"text"` (a capped string ends in `…`,
/// bytes that are not UTF-8 shown `\x..`), `nil`, `<redacted>`, `<Type>` for a value recorded by type only, and
/// a described value's text as it is (`2026-12-06 01:30:00 +0000`).
public enum ValueText {
    /// `type`: the written type, from the descriptor (`ValueText.type(ofDescriptor:)`).
    public static func format(_ value: ValueRecord.Value, type: String) -> String {
        let bits = value.payload
        switch value.tag {
        case .int8: return String(Int8(truncatingIfNeeded: bits))
        case .int16: return String(Int16(truncatingIfNeeded: bits))
        case .int32: return String(Int32(truncatingIfNeeded: bits))
        case .int64: return String(Int64(bitPattern: bits))
        case .uint8, .uint16, .uint32, .uint64: return String(bits)
        case .float32: return String(Float(bitPattern: UInt32(truncatingIfNeeded: bits)))
        case .float64: return String(Double(bitPattern: bits))
        case .bool: return bits == 0 ? "false" : "true"
        case .pointer: return "0x" + String(bits, radix: 16)
        case .string, .character, .substring:
            let quote = value.tag == .character ? "'" : "\""
            let cut = Int(bits >> 32) > value.bytes.count ? "…" : ""
            return quote + escaped(value.bytes) + quote + cut
        case .described: return escaped(value.bytes, quoted: false) + (Int(bits >> 32) > value.bytes.count ? "…" : "")
        case .nilValue: return "nil"
        case .typeOnly: return "<\(type)>"
        case .redacted: return "<redacted>"
        }
    }

    /// `"n: Int"` → `Int`; `"-> Int"` → `Int`.
    public static func type(ofDescriptor descriptor: String) -> String {
        if descriptor.hasPrefix("-> ") { return String(descriptor.dropFirst(3)) }
        guard let colon = descriptor.firstIndex(of: ":") else { return descriptor }
        return String(descriptor[descriptor.index(after: colon)...].drop { $0 == " " })
    }

    /// `"n: Int"` → `n`, `"_ x: Int"` → `_`, `"from start: Int"` → `from`: the argument label a call shows.
    public static func label(ofDescriptor descriptor: String) -> String {
        let names = descriptor.prefix { $0 != ":" }
        return String(names.prefix { $0 != " " })
    }

    /// Valid UTF-8 as it is, with `"`, `\` and control characters escaped; any other byte as `\xHH`. `quoted`
    /// false: text shown without quotes (a description, an error), whose `"` and `\` stay as they are.
    public static func escaped(_ bytes: [UInt8], quoted: Bool = true) -> String {
        var out = ""
        var index = 0
        while index < bytes.count {
            let width = sequenceWidth(bytes, at: index)
            if width == 0 {
                out += "\\x" + hex(bytes[index])
                index += 1
                continue
            }
            let scalarText = String(decoding: bytes[index ..< index + width], as: UTF8.self)
            switch scalarText {
            case "\"" where quoted: out += "\\\""
            case "\\" where quoted: out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                out +=
                    width == 1 && bytes[index] < 0x20 || bytes[index] == 0x7F ? "\\x" + hex(bytes[index]) : scalarText
            }
            index += width
        }
        return out
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }

    /// The length of the valid UTF-8 sequence at `index`, or 0.
    private static func sequenceWidth(_ bytes: [UInt8], at index: Int) -> Int {
        let first = bytes[index]
        let width: Int
        switch first {
        case 0x00 ... 0x7F: return 1
        case 0xC2 ... 0xDF: width = 2
        case 0xE0 ... 0xEF: width = 3
        case 0xF0 ... 0xF4: width = 4
        default: return 0
        }
        guard index + width <= bytes.count else { return 0 }
        if String(validating: bytes[index ..< index + width], as: UTF8.self) != nil { return width }
        return 0
    }
}
