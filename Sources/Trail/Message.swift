extension Logger {
    /// A log message. Literal text and integers are kept as they are and formatted straight into the log
    /// line, so a message like `"served \(count) items in \(micros) us"` allocates nothing; other interpolated
    /// values become text.
    @frozen
    public struct Message: ExpressibleByStringLiteral, ExpressibleByStringInterpolation, CustomStringConvertible,
        Sendable
    {
        @usableFromInline typealias Literals = (
            StaticString, StaticString, StaticString, StaticString, StaticString, StaticString
        )
        @inlinable static var literalCapacity: Int { 6 }
        @inlinable static var integerCapacity: Int { 4 }

        @usableFromInline var literals: Literals = ("", "", "", "", "", "")
        @usableFromInline var integers: (Int, Int, Int, Int) = (0, 0, 0, 0)
        /// Everything else, in order; nil for most messages.
        @usableFromInline var texts: [String]?
        /// Two bits per piece, in order: 1 literal, 2 integer, 3 text.
        @usableFromInline var kinds: UInt64 = 0
        @usableFromInline var count: UInt8 = 0
        @usableFromInline var literalCount: UInt8 = 0
        @usableFromInline var integerCount: UInt8 = 0

        @inlinable public init(stringLiteral value: StaticString) {
            appendLiteral(value)
        }

        public init(_ text: String) {
            appendText(text)
        }

        @inlinable public init(stringInterpolation: StringInterpolation) {
            self = stringInterpolation.message
        }

        @frozen
        public struct StringInterpolation: StringInterpolationProtocol {
            @usableFromInline var message = Message(pieces: ())

            @inlinable public init(literalCapacity: Int, interpolationCount: Int) {}

            @inlinable public mutating func appendLiteral(_ literal: StaticString) {
                if literal.utf8CodeUnitCount > 0 { message.appendLiteral(literal) }
            }

            @inlinable public mutating func appendInterpolation(_ value: Int) { message.appendInteger(value) }
            @inlinable public mutating func appendInterpolation(_ value: Int32) { message.appendInteger(Int(value)) }
            @inlinable public mutating func appendInterpolation(_ value: UInt32) { message.appendInteger(Int(value)) }
            public mutating func appendInterpolation(_ value: String) { message.appendText(value) }
            public mutating func appendInterpolation<Value>(_ value: Value) {
                message.appendText(String(describing: value))
            }
        }

        @inlinable init(pieces: Void) {}

        @inlinable var isFull: Bool { count >= 32 }

        @inlinable mutating func appendLiteral(_ literal: StaticString) {
            guard literalCount < Self.literalCapacity, !isFull, literal.hasPointerRepresentation else {
                return appendText(literal.description)
            }
            switch literalCount {
            case 0: literals.0 = literal
            case 1: literals.1 = literal
            case 2: literals.2 = literal
            case 3: literals.3 = literal
            case 4: literals.4 = literal
            default: literals.5 = literal
            }
            literalCount += 1
            push(1)
        }

        @inlinable mutating func appendInteger(_ value: Int) {
            guard integerCount < Self.integerCapacity, !isFull else { return appendText(String(value)) }
            switch integerCount {
            case 0: integers.0 = value
            case 1: integers.1 = value
            case 2: integers.2 = value
            default: integers.3 = value
            }
            integerCount += 1
            push(2)
        }

        @usableFromInline mutating func appendText(_ text: String) {
            if texts == nil { texts = [] }
            texts!.append(text)
            if isFull {
                // Past 32 pieces, further text joins the last piece.
                if texts!.count >= 2 {
                    let last = texts!.removeLast()
                    texts![texts!.count - 1] += last
                }
                return
            }
            push(3)
        }

        @inlinable mutating func push(_ kind: UInt64) {
            kinds |= kind << (2 * UInt64(count))
            count += 1
        }

        /// Appends each piece's UTF-8 bytes to `line`, integers in decimal, in order.
        func write(into line: inout LineBuilder, escapesText: Bool = true) {
            var literal = 0
            var integer = 0
            var text = 0
            for index in 0 ..< Int(count) {
                switch (kinds >> (2 * UInt64(index))) & 3 {
                case 1:
                    let value: StaticString =
                        switch literal {
                        case 0: literals.0
                        case 1: literals.1
                        case 2: literals.2
                        case 3: literals.3
                        case 4: literals.4
                        default: literals.5
                        }
                    literal += 1
                    line.append(value.utf8Start, value.utf8CodeUnitCount)
                case 2:
                    let value =
                        switch integer {
                        case 0: integers.0
                        case 1: integers.1
                        case 2: integers.2
                        default: integers.3
                        }
                    integer += 1
                    line.append(value)
                default:
                    // Text from values may hold anything: its control bytes are escaped (LineBuilder.escapeControls).
                    // Literals are the program's own and go as written.
                    let start = line.length
                    line.append(texts![text])
                    if escapesText { line.escapeControls(from: start) }
                    text += 1
                }
            }
        }

        public var description: String {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { scratch in
                var line = LineBuilder(scratch)
                write(into: &line, escapesText: false)
                var text = ""
                line.withBytes { text = String(decoding: $0, as: UTF8.self) }
                return text
            }
        }
    }
}

/// Writes `value` in decimal at `out` and returns the length (at most 20).
@inline(__always)
func formatDecimal(_ value: Int, into out: UnsafeMutablePointer<UInt8>) -> Int {
    var magnitude = value.magnitude
    var digits = 1
    var bound: UInt = 10
    while digits < 20, magnitude >= bound {
        digits += 1
        bound = bound &* 10
    }
    let sign = value < 0 ? 1 : 0
    if sign == 1 { out[0] = 45 }
    var position = sign + digits
    // Two digits per division: half the divisions, the pair copied from a table. The table is a literal, not a
    // global: a global is set up on first use under a once-lock, and a child forked while another thread was
    // setting it up spun on that lock forever (the soak found it).
    let decimalPairs: StaticString =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
    return decimalPairs.withUTF8Buffer { pairs in
        while magnitude >= 100 {
            let pair = Int(magnitude % 100) * 2
            magnitude /= 100
            position -= 2
            out[position] = pairs[pair]
            out[position + 1] = pairs[pair + 1]
        }
        if magnitude >= 10 {
            let pair = Int(magnitude) * 2
            out[position - 2] = pairs[pair]
            out[position - 1] = pairs[pair + 1]
        } else {
            out[position - 1] = UInt8(truncatingIfNeeded: magnitude) &+ 48
        }
        return sign + digits
    }
}
