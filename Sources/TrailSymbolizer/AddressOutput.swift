import TrailFormat

/// Output for `trail symbolize --obj`, in llvm-symbolizer's shapes: per address, each frame as a function line
/// and a `file:line:column` line, innermost first, then a blank line; or one JSON object per address.
public enum AddressOutput {
    public static func json(address: String, module: String, _ frames: [SymbolizedFrame]) -> String {
        let symbols = frames.map { frame in
            "{\"Column\":\(frame.column),\"Discriminator\":0,\"FileName\":\(JSONString.quote(frame.file ?? "")),"
                + "\"FunctionName\":\(JSONString.quote(frame.function)),\"Line\":\(frame.line),\"MangledName\":\(JSONString.quote(frame.mangledName)),"
                + "\"Inlined\":\(frame.inlined)}"
        }
        return
            "{\"Address\":\(JSONString.quote(address)),\"ModuleName\":\(JSONString.quote(module)),\"Symbol\":[\(symbols.joined(separator: ","))]}\n"
    }

    /// Parses `0x1234` or `1234`: hexadecimal, as llvm-symbolizer reads module offsets.
    public static func parseAddress(_ text: ArraySlice<UInt8>) -> UInt64? {
        var value: UInt64 = 0
        var digits = 0
        var utf8 = text
        while let first = utf8.first, first == 32 || first == 9 { utf8 = utf8.dropFirst() }
        while let last = utf8.last, last == 32 || last == 9 || last == 13 { utf8 = utf8.dropLast() }
        if utf8.count > 2, utf8.first == 48, let x = utf8.dropFirst().first, x == 120 || x == 88 {
            utf8 = utf8.dropFirst(2)
        }
        for byte in utf8 {
            let digit: UInt64
            switch byte {
            case 48 ... 57: digit = UInt64(byte - 48)
            case 97 ... 102: digit = UInt64(byte - 87)
            case 65 ... 70: digit = UInt64(byte - 55)
            default: return nil
            }
            guard digits < 16 else { return nil }
            value = value << 4 | digit
            digits += 1
        }
        return digits > 0 ? value : nil
    }
}
