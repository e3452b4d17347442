/// A JSON value, as a parser of the usual shape builds it.
enum JSON {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([(key: String, value: JSON)])
}

struct ParseError: Error {
    let offset: Int
    let reason: String
}

/// A recursive-descent parser over UTF-8 bytes: the small functions real parsers are made of.
struct Parser {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    static func parse(_ bytes: [UInt8]) throws -> JSON {
        var parser = Parser(bytes)
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.atEnd else { throw ParseError(offset: parser.offset, reason: "trailing bytes") }
        return value
    }

    private var atEnd: Bool { offset >= bytes.count }

    private func peek() -> UInt8? { atEnd ? nil : bytes[offset] }

    private mutating func advance() -> UInt8? {
        guard let byte = peek() else { return nil }
        offset += 1
        return byte
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), Self.isWhitespace(byte) { offset += 1 }
    }

    private mutating func expect(_ byte: UInt8) throws {
        skipWhitespace()
        guard advance() == byte else { throw ParseError(offset: offset, reason: "expected \(Character(Unicode.Scalar(byte)))") }
    }

    private mutating func value() throws -> JSON {
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case let byte? where byte == UInt8(ascii: "-") || Self.isDigit(byte): return .number(try number())
        default: throw ParseError(offset: offset, reason: "unexpected byte")
        }
    }

    private mutating func literal(_ word: String, _ result: JSON) throws -> JSON {
        for expected in word.utf8 {
            guard advance() == expected else { throw ParseError(offset: offset, reason: "bad literal") }
        }
        return result
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func digits() -> Double {
        var value = 0.0
        while let byte = peek(), Self.isDigit(byte) {
            value = value * 10 + Double(byte - UInt8(ascii: "0"))
            offset += 1
        }
        return value
    }

    private mutating func number() throws -> Double {
        let negative = peek() == UInt8(ascii: "-")
        if negative { offset += 1 }
        var value = digits()
        if peek() == UInt8(ascii: ".") {
            offset += 1
            let start = offset
            let fraction = digits()
            value += fraction / Self.power(of: 10, offset - start)
        }
        return negative ? -value : value
    }

    private static func power(of base: Double, _ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0 ..< exponent { result *= base }
        return result
    }

    private mutating func string() throws -> String {
        try expect(UInt8(ascii: "\""))
        var scalars: [UInt8] = []
        while let byte = advance() {
            switch byte {
            case UInt8(ascii: "\""): return String(decoding: scalars, as: UTF8.self)
            case UInt8(ascii: "\\"): scalars.append(try escaped())
            default: scalars.append(byte)
            }
        }
        throw ParseError(offset: offset, reason: "unterminated string")
    }

    private mutating func escaped() throws -> UInt8 {
        switch advance() {
        case UInt8(ascii: "n"): return 0x0A
        case UInt8(ascii: "t"): return 0x09
        case let byte?: return byte
        case nil: throw ParseError(offset: offset, reason: "cut escape")
        }
    }

    private mutating func array() throws -> JSON {
        try expect(UInt8(ascii: "["))
        var elements: [JSON] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            offset += 1
            return .array(elements)
        }
        while true {
            elements.append(try value())
            skipWhitespace()
            if advance() == UInt8(ascii: "]") { return .array(elements) }
        }
    }

    private mutating func object() throws -> JSON {
        try expect(UInt8(ascii: "{"))
        var members: [(key: String, value: JSON)] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            offset += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            let key = try string()
            try expect(UInt8(ascii: ":"))
            members.append((key, try value()))
            skipWhitespace()
            if advance() == UInt8(ascii: "}") { return .object(members) }
        }
    }
}
