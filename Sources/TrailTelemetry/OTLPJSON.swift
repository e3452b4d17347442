import TrailFormat

/// Appends OTLP/JSON (the OTLP specification's JSON mapping of the protobuf messages) to a byte buffer:
/// lowerCamelCase keys, 64-bit integers as decimal strings, enums as integers, ids as lowercase hex.
struct OTLPJSON {
    var bytes: [UInt8] = []
    /// Whether the next member or element needs a comma before it.
    private var needsComma = false

    init(bytes: [UInt8] = []) { self.bytes = bytes }

    /// Runs `encode` on a writer that appends to `bytes`, without copying them.
    static func append(to bytes: inout [UInt8], _ encode: (inout OTLPJSON) -> Void) {
        var json = OTLPJSON(bytes: bytes)
        bytes = []
        encode(&json)
        bytes = json.bytes
    }

    mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func raw(_ text: String) { bytes.append(contentsOf: text.utf8) }

    private mutating func separate() {
        if needsComma { bytes.append(44) }
        needsComma = false
    }

    /// `"key":`, after a comma when a member came before.
    mutating func key(_ name: StaticString) {
        separate()
        bytes.append(34)
        raw(name)
        raw("\":")
    }

    /// `"key":value` in one call, for the value kinds OTLP uses.
    mutating func member(_ name: StaticString, string value: String) {
        key(name)
        string(value)
    }
    mutating func member<Value: BinaryInteger>(_ name: StaticString, int64 value: Value) {
        key(name)
        int64(value)
    }
    mutating func member<Value: BinaryInteger>(_ name: StaticString, int32 value: Value) {
        key(name)
        int32(value)
    }
    mutating func member(_ name: StaticString, hex id: some HexID) {
        key(name)
        string(id.hex)
    }

    mutating func object(_ body: (inout OTLPJSON) -> Void) { enclosed(123, 125, body) }

    mutating func array(_ body: (inout OTLPJSON) -> Void) { enclosed(91, 93, body) }

    private mutating func enclosed(_ open: UInt8, _ close: UInt8, _ body: (inout OTLPJSON) -> Void) {
        separate()
        bytes.append(open)
        body(&self)
        bytes.append(close)
        needsComma = true
    }

    mutating func string(_ text: String) {
        separate()
        JSONString.append(text, to: &bytes)
        needsComma = true
    }

    /// int64, uint64, fixed64: a decimal string.
    mutating func int64<Value: BinaryInteger>(_ value: Value) {
        separate()
        bytes.append(34)
        raw(String(value))
        bytes.append(34)
        needsComma = true
    }

    /// int32, uint32 and enums: a JSON number.
    mutating func int32<Value: BinaryInteger>(_ value: Value) {
        separate()
        raw(String(value))
        needsComma = true
    }

    /// A finite double as a number; NaN and infinities as the strings the mapping names.
    mutating func double(_ value: Double) {
        if value.isNaN { return string("NaN") }
        if value.isInfinite { return string(value > 0 ? "Infinity" : "-Infinity") }
        separate()
        raw(value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value))
        needsComma = true
    }

    mutating func bool(_ value: Bool) {
        separate()
        raw(value ? "true" : "false")
        needsComma = true
    }

    /// `"attributes":[{"key":…,"value":{…}},…]`, left out when empty (the default).
    mutating func attributes(_ attributes: [Attribute]) {
        guard !attributes.isEmpty else { return }
        key("attributes")
        keyValues(attributes)
    }

    mutating func keyValues(_ attributes: [Attribute]) {
        array { json in
            for attribute in attributes {
                json.object { json in
                    json.member("key", string: attribute.key)
                    json.key("value")
                    json.anyValue(attribute.value)
                }
            }
        }
    }

    /// AnyValue: one of stringValue, boolValue, intValue (a string), doubleValue, arrayValue, kvlistValue.
    mutating func anyValue(_ value: AttributeValue) {
        object { json in
            switch value {
            case .string(let text):
                json.member("stringValue", string: text)
            case .bool(let flag):
                json.key("boolValue")
                json.bool(flag)
            case .int(let number):
                json.member("intValue", int64: number)
            case .double(let number):
                json.key("doubleValue")
                json.double(number)
            case .array(let values):
                json.key("arrayValue")
                json.object { json in
                    json.key("values")
                    json.array { json in for element in values { json.anyValue(element) } }
                }
            case .keyValues(let members):
                json.key("kvlistValue")
                json.object { json in
                    json.key("values")
                    json.keyValues(members)
                }
            }
        }
    }
}
