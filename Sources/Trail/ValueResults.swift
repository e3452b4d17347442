// Values (issue 41): a result recorded with the exit of a body that is one value,
// `return value ~>| Trail.TypedValueExit<Int>("-> Int")` (TrailExit's operators call these). With tracing off, the
// same one branch as `exit()`; on, one call that records the result when the call records values, then exits.
internal import CTrailShim

extension Trail {
    /// The right operand of `value ~>| Trail.TypedValueExit<R>("-> R")`: as `TypedExit<R>`, and the descriptor of
    /// the result.
    @frozen
    public struct TypedValueExit<Result: ~Copyable & ~Escapable> {
        public let descriptor: StaticString

        @_transparent
        public init(_ descriptor: StaticString) { self.descriptor = descriptor }
    }

    /// The right operand of `value ~>| Trail.RedactedValueExit<R>("-> R")`, the exit of a function or property whose
    /// name holds a word of the rewriter's redaction list (`apiToken()`): the result is recorded as `<redacted>`.
    @frozen
    public struct RedactedValueExit<Result: ~Copyable & ~Escapable> {
        public let descriptor: StaticString

        @_transparent
        public init(_ descriptor: StaticString) { self.descriptor = descriptor }
    }

    /// A result never passed: `<redacted>`, then the exit.
    @_transparent
    public static func exitRedacted(_ descriptor: StaticString) {
        if tracing { recordExitRedacted(descriptor) }
    }

    @usableFromInline
    static func recordExitRedacted(_ descriptor: StaticString) {
        ValueRecorder.exit(descriptor, .redacted, bits: 0)
    }

    /// Any other result: its written type is what is shown.
    @_transparent
    public static func exit<Value: ~Copyable & ~Escapable>(_ descriptor: StaticString, returning v: borrowing Value) {
        if tracing { recordExitTypeOnly(descriptor) }
    }

    @usableFromInline
    static func recordExitTypeOnly(_ descriptor: StaticString) {
        ValueRecorder.exit(descriptor, .typeOnly, bits: 0)
    }

    /// Any other copyable result: by its description when `TRAIL_VALUES_DESCRIBE` names its written type.
    @_transparent
    public static func exit<Value>(_ descriptor: StaticString, describing v: Value) {
        if tracing { recordExit(descriptor, describing: v) }
    }

    @usableFromInline
    static func recordExit<Value>(_ descriptor: StaticString, describing v: Value) {
        guard let text = ValueRecorder.description(descriptor, v) else { return recordExitTypeOnly(descriptor) }
        ValueRecorder.exit(descriptor, .described, text)
    }

    /// An optional of any other type: `nil` when it holds none, else as `describing:` for the value it holds.
    @_transparent
    public static func exit<Wrapped>(_ descriptor: StaticString, optional v: Wrapped?) {
        if tracing { recordExit(descriptor, optional: v) }
    }

    @usableFromInline
    static func recordExit<Wrapped>(_ descriptor: StaticString, optional v: Wrapped?) {
        guard let v else { return ValueRecorder.exit(descriptor, .nilValue, bits: 0) }
        recordExit(descriptor, describing: v)
    }

    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: Int) {
        ValueRecorder.exit(descriptor, .int64, bits: UInt64(bitPattern: Int64(v)))
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: Int?) {
        if let v { recordExit(descriptor, v) } else { ValueRecorder.exit(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: Int) {
        if tracing { recordExit(descriptor, value) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: Int?) {
        if tracing { recordExit(descriptor, value) }
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: Int8) {
        ValueRecorder.exit(descriptor, .int8, bits: UInt64(bitPattern: Int64(v)))
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: Int8?) {
        if let v { recordExit(descriptor, v) } else { ValueRecorder.exit(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: Int8) {
        if tracing { recordExit(descriptor, value) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: Int8?) {
        if tracing { recordExit(descriptor, value) }
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: Int16) {
        ValueRecorder.exit(descriptor, .int16, bits: UInt64(bitPattern: Int64(v)))
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: Int16?) {
        if let v { recordExit(descriptor, v) } else { ValueRecorder.exit(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: Int16) {
        if tracing { recordExit(descriptor, value) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: Int16?) {
        if tracing { recordExit(descriptor, value) }
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: Int32) {
        ValueRecorder.exit(descriptor, .int32, bits: UInt64(bitPattern: Int64(v)))
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: Int32?) {
        if let v { recordExit(descriptor, v) } else { ValueRecorder.exit(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: Int32) {
        if tracing { recordExit(descriptor, value) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: Int32?) {
        if tracing { recordExit(descriptor, value) }
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: Int64) {
        ValueRecorder.exit(descriptor, .int64, bits: UInt64(bitPattern: v))
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: Int64?) {
        if let v { recordExit(descriptor, v) } else { ValueRecorder.exit(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: Int64) {
        if tracing { recordExit(descriptor, value) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: Int64?) {
        if tracing { recordExit(descriptor, value) }
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: UInt) {
        ValueRecorder.exit(descriptor, .uint64, bits: UInt64(v))
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: UInt?) {
        if let v { recordExit(descriptor, v) } else { ValueRecorder.exit(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: UInt) {
        if tracing { recordExit(descriptor, value) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: UInt?) {
        if tracing { recordExit(descriptor, value) }
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: UInt8) {
        ValueRecorder.exit(descriptor, .uint8, bits: UInt64(v))
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: UInt8?) {
        if let v { recordExit(descriptor, v) } else { ValueRecorder.exit(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: UInt8) {
        if tracing { recordExit(descriptor, value) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: UInt8?) {
        if tracing { recordExit(descriptor, value) }
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: UInt16) {
        ValueRecorder.exit(descriptor, .uint16, bits: UInt64(v))
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: UInt16?) {
        if let v { recordExit(descriptor, v) } else { ValueRecorder.exit(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: UInt16) {
        if tracing { recordExit(descriptor, value) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: UInt16?) {
        if tracing { recordExit(descriptor, value) }
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: UInt32) {
        ValueRecorder.exit(descriptor, .uint32, bits: UInt64(v))
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: UInt32?) {
        if let v { recordExit(descriptor, v) } else { ValueRecorder.exit(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: UInt32) {
        if tracing { recordExit(descriptor, value) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: UInt32?) {
        if tracing { recordExit(descriptor, value) }
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: UInt64) {
        ValueRecorder.exit(descriptor, .uint64, bits: v)
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: UInt64?) {
        if let v { recordExit(descriptor, v) } else { ValueRecorder.exit(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: UInt64) {
        if tracing { recordExit(descriptor, value) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: UInt64?) {
        if tracing { recordExit(descriptor, value) }
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: Float) {
        ValueRecorder.exit(descriptor, .float32, bits: UInt64(v.bitPattern))
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: Float?) {
        if let v { recordExit(descriptor, v) } else { ValueRecorder.exit(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: Float) {
        if tracing { recordExit(descriptor, value) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: Float?) {
        if tracing { recordExit(descriptor, value) }
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: Double) {
        ValueRecorder.exit(descriptor, .float64, bits: v.bitPattern)
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: Double?) {
        if let v { recordExit(descriptor, v) } else { ValueRecorder.exit(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: Double) {
        if tracing { recordExit(descriptor, value) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: Double?) {
        if tracing { recordExit(descriptor, value) }
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: Bool) {
        ValueRecorder.exit(descriptor, .bool, bits: v ? 1 : 0)
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: Bool?) {
        if let v { recordExit(descriptor, v) } else { ValueRecorder.exit(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: Bool) {
        if tracing { recordExit(descriptor, value) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: Bool?) {
        if tracing { recordExit(descriptor, value) }
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: UnsafeRawPointer) {
        ValueRecorder.exit(descriptor, .pointer, bits: UInt64(UInt(bitPattern: v)))
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: UnsafeRawPointer?) {
        if let v { recordExit(descriptor, v) } else { ValueRecorder.exit(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: UnsafeRawPointer) {
        if tracing { recordExit(descriptor, value) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: UnsafeRawPointer?) {
        if tracing { recordExit(descriptor, value) }
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: UnsafeMutableRawPointer) {
        ValueRecorder.exit(descriptor, .pointer, bits: UInt64(UInt(bitPattern: v)))
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: UnsafeMutableRawPointer?) {
        if let v { recordExit(descriptor, v) } else { ValueRecorder.exit(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: UnsafeMutableRawPointer) {
        if tracing { recordExit(descriptor, value) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: UnsafeMutableRawPointer?) {
        if tracing { recordExit(descriptor, value) }
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: OpaquePointer) {
        ValueRecorder.exit(descriptor, .pointer, bits: UInt64(UInt(bitPattern: v)))
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: OpaquePointer?) {
        if let v { recordExit(descriptor, v) } else { ValueRecorder.exit(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: OpaquePointer) {
        if tracing { recordExit(descriptor, value) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: OpaquePointer?) {
        if tracing { recordExit(descriptor, value) }
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: String) {
        ValueRecorder.exit(descriptor, .string, v)
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: String?) {
        if let v { recordExit(descriptor, v) } else { ValueRecorder.exit(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: String) {
        if tracing { recordExit(descriptor, value) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: String?) {
        if tracing { recordExit(descriptor, value) }
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: Substring) {
        ValueRecorder.exit(descriptor, .substring, v)
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: Substring?) {
        if let v { recordExit(descriptor, v) } else { ValueRecorder.exit(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: Substring) {
        if tracing { recordExit(descriptor, value) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: Substring?) {
        if tracing { recordExit(descriptor, value) }
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: Character) {
        ValueRecorder.exit(descriptor, .character, String(v))
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: Character?) {
        if let v { recordExit(descriptor, v) } else { ValueRecorder.exit(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: Character) {
        if tracing { recordExit(descriptor, value) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: Character?) {
        if tracing { recordExit(descriptor, value) }
    }

    // Int128, UInt128 and Float16: by their text (ValueArguments.swift says why).
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: Int128) {
        ValueRecorder.exit(descriptor, .described, String(v))
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: Int128?) {
        if let v { recordExit(descriptor, v) } else { ValueRecorder.exit(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: Int128) {
        if tracing { recordExit(descriptor, value) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: Int128?) {
        if tracing { recordExit(descriptor, value) }
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: UInt128) {
        ValueRecorder.exit(descriptor, .described, String(v))
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: UInt128?) {
        if let v { recordExit(descriptor, v) } else { ValueRecorder.exit(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: UInt128) {
        if tracing { recordExit(descriptor, value) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: UInt128?) {
        if tracing { recordExit(descriptor, value) }
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: Float16) {
        ValueRecorder.exit(descriptor, .described, String(v))
    }
    @usableFromInline static func recordExit(_ descriptor: StaticString, _ v: Float16?) {
        if let v { recordExit(descriptor, v) } else { ValueRecorder.exit(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: Float16) {
        if tracing { recordExit(descriptor, value) }
    }
    @_transparent public static func exit(_ descriptor: StaticString, returning value: Float16?) {
        if tracing { recordExit(descriptor, value) }
    }
}
