// The recorders the typed overloads share (ValueArguments, ValueResults): scalars by their bits, strings by their
// UTF-8 bytes; tags and roles are TrailFormat's (the C side's trail_format.h).
internal import CTrailShim
internal import TrailFormat

enum ValueRecorder {
    static func bits(_ descriptor: StaticString, _ tag: ValueTag, _ role: ValueRole, _ bits: UInt64) {
        trail_value_bits(descriptor.utf8Start, tag.rawValue, role.rawValue, bits)
    }

    static func string(_ descriptor: StaticString, _ tag: ValueTag, _ role: ValueRole, _ text: some StringProtocol) {
        withUTF8(text) {
            trail_value_string(descriptor.utf8Start, tag.rawValue, role.rawValue, $0.baseAddress, $0.count)
        }
    }

    /// The result, then the exit.
    static func exit(_ descriptor: StaticString, _ tag: ValueTag, bits: UInt64) {
        trail_value_exit_bits(descriptor.utf8Start, tag.rawValue, bits)
    }

    static func exit(_ descriptor: StaticString, _ tag: ValueTag, _ text: some StringProtocol) {
        withUTF8(text) { trail_value_exit_string(descriptor.utf8Start, tag.rawValue, $0.baseAddress, $0.count) }
    }

    /// A result kept until the call's exit (`~>>`).
    static func result(_ descriptor: StaticString, _ tag: ValueTag, bits: UInt64) {
        trail_value_result_bits(descriptor.utf8Start, tag.rawValue, bits)
    }

    static func result(_ descriptor: StaticString, _ tag: ValueTag, _ text: some StringProtocol) {
        withUTF8(text) { trail_value_result_string(descriptor.utf8Start, tag.rawValue, $0.baseAddress, $0.count) }
    }

    /// `String(describing:)` of a value whose written type TRAIL_VALUES_DESCRIBE names, when the innermost call
    /// records values; nil otherwise, and nothing ran. Its description may run traced code: recorded as children
    /// of the call.
    static func description<Value>(_ descriptor: StaticString, _ value: Value) -> String? {
        trail_values_describes(descriptor.utf8Start) != 0 ? String(describing: value) : nil
    }

    /// The bytes where they are when they are contiguous (native strings), else a copy.
    private static func withUTF8(_ text: some StringProtocol, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        if text.utf8.withContiguousStorageIfAvailable(body) == nil { Array(text.utf8).withUnsafeBufferPointer(body) }
    }
}
