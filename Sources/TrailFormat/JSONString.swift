/// The one JSON string writer of the output formats (`trail symbolize --format json` and `--obj --json`,
/// `trail report --crash --json`, `trail export --chrome`). Here because every target that writes JSON reads
/// through this module, which depends on nothing.
public enum JSONString {
    /// `text` as a JSON string literal: `"`, `\` and control characters escaped (`\n`, `\r`, `\t` by name,
    /// others as `\u00XX`); everything else, non-ASCII included, as is.
    public static func quote(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 2)
        append(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `text` as a JSON string literal to UTF-8 bytes.
    public static func append(_ text: String, to out: inout [UInt8]) {
        out.append(34)
        appendEscaped(text.utf8, to: &out)
        out.append(34)
    }

    /// Appends UTF-8 bytes escaped as the inside of a JSON string literal, without the quotes.
    public static func appendEscaped<Bytes: Sequence<UInt8>>(_ bytes: Bytes, to out: inout [UInt8]) {
        for byte in bytes {
            switch byte {
            case 34, 92:
                out.append(92)
                out.append(byte)  // \" \\
            case 10:
                out.append(92)
                out.append(110)  // \n
            case 13:
                out.append(92)
                out.append(114)  // \r
            case 9:
                out.append(92)
                out.append(116)  // \t
            case 0 ..< 32:  // \u00XX
                let digits: StaticString = "0123456789abcdef"
                out.append(contentsOf: [
                    92, 117, 48, 48, digits.utf8Start[Int(byte >> 4)], digits.utf8Start[Int(byte & 15)],
                ])
            default: out.append(byte)
            }
        }
    }
}
