// Values (issue 41): a result recorded where a body with a `defer` returns it,
// `return value ~>> Trail.TypedResult<Int>("-> Int")` (TrailExit's operators call these). The runtime keeps it
// until the call's exit, which writes it right before the EXIT record; with tracing off, one branch.
public import CTrailHooks
internal import CTrailShim

extension Trail {
    /// The right operand of `value ~>> Trail.TypedResult<R>("-> R")`: as `TypedValueExit<R>`, without the exit.
    @frozen
    public struct TypedResult<Result: ~Copyable & ~Escapable> {
        public let descriptor: StaticString

        @_transparent
        public init(_ descriptor: StaticString) { self.descriptor = descriptor }

        /// In an async body: the result that the operator records next is the call `span`'s, kept for its exit.
        /// The operands are made left to right, so this runs after the value and right before the operator.
        @_transparent
        public init(_ descriptor: StaticString, _ span: Span) {
            self.descriptor = descriptor
            if _slowPath(span.raw.word != 0) { Trail.returning(span) }
        }
    }

    @usableFromInline
    static func returning(_ span: Span) { trail_values_async_result(span.raw) }

    /// The right operand of `value ~>> Trail.RedactedResult<R>("-> R")`: as `RedactedValueExit<R>`, without the
    /// exit.
    @frozen
    public struct RedactedResult<Result: ~Copyable & ~Escapable> {
        public let descriptor: StaticString

        @_transparent
        public init(_ descriptor: StaticString) { self.descriptor = descriptor }

        @_transparent
        public init(_ descriptor: StaticString, _ span: Span) {
            self.descriptor = descriptor
            if _slowPath(span.raw.word != 0) { Trail.returning(span) }
        }
    }

    /// A result never passed, kept for the exit: `<redacted>`.
    @_transparent
    public static func resultRedacted(_ descriptor: StaticString) {
        if tracing { recordResultRedacted(descriptor) }
    }

    @usableFromInline
    static func recordResultRedacted(_ descriptor: StaticString) {
        ValueRecorder.result(descriptor, .redacted, bits: 0)
    }

    /// Any other result: its written type is what is shown.
    @_transparent
    public static func result<Value: ~Copyable & ~Escapable>(_ descriptor: StaticString, _ v: borrowing Value) {
        if tracing { recordResultTypeOnly(descriptor) }
    }

    @usableFromInline
    static func recordResultTypeOnly(_ descriptor: StaticString) {
        ValueRecorder.result(descriptor, .typeOnly, bits: 0)
    }

    /// Any other copyable result: by its description when `TRAIL_VALUES_DESCRIBE` names its written type.
    @_transparent
    public static func result<Value>(_ descriptor: StaticString, describing v: Value) {
        if tracing { recordResult(descriptor, describing: v) }
    }

    @usableFromInline
    static func recordResult<Value>(_ descriptor: StaticString, describing v: Value) {
        guard let text = ValueRecorder.description(descriptor, v) else { return recordResultTypeOnly(descriptor) }
        ValueRecorder.result(descriptor, .described, text)
    }

    /// An optional of any other type: `nil` when it holds none, else as `describing:` for the value it holds.
    @_transparent
    public static func result<Wrapped>(_ descriptor: StaticString, optional v: Wrapped?) {
        if tracing { recordResult(descriptor, optional: v) }
    }

    @usableFromInline
    static func recordResult<Wrapped>(_ descriptor: StaticString, optional v: Wrapped?) {
        guard let v else { return ValueRecorder.result(descriptor, .nilValue, bits: 0) }
        recordResult(descriptor, describing: v)
    }

    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: Int) {
        ValueRecorder.result(descriptor, .int64, bits: UInt64(bitPattern: Int64(v)))
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: Int?) {
        if let v { recordResult(descriptor, v) } else { ValueRecorder.result(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: Int) {
        if tracing { recordResult(descriptor, value) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: Int?) {
        if tracing { recordResult(descriptor, value) }
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: Int8) {
        ValueRecorder.result(descriptor, .int8, bits: UInt64(bitPattern: Int64(v)))
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: Int8?) {
        if let v { recordResult(descriptor, v) } else { ValueRecorder.result(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: Int8) {
        if tracing { recordResult(descriptor, value) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: Int8?) {
        if tracing { recordResult(descriptor, value) }
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: Int16) {
        ValueRecorder.result(descriptor, .int16, bits: UInt64(bitPattern: Int64(v)))
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: Int16?) {
        if let v { recordResult(descriptor, v) } else { ValueRecorder.result(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: Int16) {
        if tracing { recordResult(descriptor, value) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: Int16?) {
        if tracing { recordResult(descriptor, value) }
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: Int32) {
        ValueRecorder.result(descriptor, .int32, bits: UInt64(bitPattern: Int64(v)))
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: Int32?) {
        if let v { recordResult(descriptor, v) } else { ValueRecorder.result(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: Int32) {
        if tracing { recordResult(descriptor, value) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: Int32?) {
        if tracing { recordResult(descriptor, value) }
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: Int64) {
        ValueRecorder.result(descriptor, .int64, bits: UInt64(bitPattern: v))
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: Int64?) {
        if let v { recordResult(descriptor, v) } else { ValueRecorder.result(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: Int64) {
        if tracing { recordResult(descriptor, value) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: Int64?) {
        if tracing { recordResult(descriptor, value) }
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: UInt) {
        ValueRecorder.result(descriptor, .uint64, bits: UInt64(v))
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: UInt?) {
        if let v { recordResult(descriptor, v) } else { ValueRecorder.result(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: UInt) {
        if tracing { recordResult(descriptor, value) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: UInt?) {
        if tracing { recordResult(descriptor, value) }
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: UInt8) {
        ValueRecorder.result(descriptor, .uint8, bits: UInt64(v))
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: UInt8?) {
        if let v { recordResult(descriptor, v) } else { ValueRecorder.result(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: UInt8) {
        if tracing { recordResult(descriptor, value) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: UInt8?) {
        if tracing { recordResult(descriptor, value) }
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: UInt16) {
        ValueRecorder.result(descriptor, .uint16, bits: UInt64(v))
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: UInt16?) {
        if let v { recordResult(descriptor, v) } else { ValueRecorder.result(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: UInt16) {
        if tracing { recordResult(descriptor, value) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: UInt16?) {
        if tracing { recordResult(descriptor, value) }
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: UInt32) {
        ValueRecorder.result(descriptor, .uint32, bits: UInt64(v))
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: UInt32?) {
        if let v { recordResult(descriptor, v) } else { ValueRecorder.result(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: UInt32) {
        if tracing { recordResult(descriptor, value) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: UInt32?) {
        if tracing { recordResult(descriptor, value) }
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: UInt64) {
        ValueRecorder.result(descriptor, .uint64, bits: v)
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: UInt64?) {
        if let v { recordResult(descriptor, v) } else { ValueRecorder.result(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: UInt64) {
        if tracing { recordResult(descriptor, value) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: UInt64?) {
        if tracing { recordResult(descriptor, value) }
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: Float) {
        ValueRecorder.result(descriptor, .float32, bits: UInt64(v.bitPattern))
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: Float?) {
        if let v { recordResult(descriptor, v) } else { ValueRecorder.result(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: Float) {
        if tracing { recordResult(descriptor, value) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: Float?) {
        if tracing { recordResult(descriptor, value) }
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: Double) {
        ValueRecorder.result(descriptor, .float64, bits: v.bitPattern)
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: Double?) {
        if let v { recordResult(descriptor, v) } else { ValueRecorder.result(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: Double) {
        if tracing { recordResult(descriptor, value) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: Double?) {
        if tracing { recordResult(descriptor, value) }
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: Bool) {
        ValueRecorder.result(descriptor, .bool, bits: v ? 1 : 0)
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: Bool?) {
        if let v { recordResult(descriptor, v) } else { ValueRecorder.result(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: Bool) {
        if tracing { recordResult(descriptor, value) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: Bool?) {
        if tracing { recordResult(descriptor, value) }
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: UnsafeRawPointer) {
        ValueRecorder.result(descriptor, .pointer, bits: UInt64(UInt(bitPattern: v)))
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: UnsafeRawPointer?) {
        if let v { recordResult(descriptor, v) } else { ValueRecorder.result(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: UnsafeRawPointer) {
        if tracing { recordResult(descriptor, value) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: UnsafeRawPointer?) {
        if tracing { recordResult(descriptor, value) }
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: UnsafeMutableRawPointer) {
        ValueRecorder.result(descriptor, .pointer, bits: UInt64(UInt(bitPattern: v)))
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: UnsafeMutableRawPointer?) {
        if let v { recordResult(descriptor, v) } else { ValueRecorder.result(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: UnsafeMutableRawPointer) {
        if tracing { recordResult(descriptor, value) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: UnsafeMutableRawPointer?) {
        if tracing { recordResult(descriptor, value) }
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: OpaquePointer) {
        ValueRecorder.result(descriptor, .pointer, bits: UInt64(UInt(bitPattern: v)))
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: OpaquePointer?) {
        if let v { recordResult(descriptor, v) } else { ValueRecorder.result(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: OpaquePointer) {
        if tracing { recordResult(descriptor, value) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: OpaquePointer?) {
        if tracing { recordResult(descriptor, value) }
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: String) {
        ValueRecorder.result(descriptor, .string, v)
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: String?) {
        if let v { recordResult(descriptor, v) } else { ValueRecorder.result(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: String) {
        if tracing { recordResult(descriptor, value) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: String?) {
        if tracing { recordResult(descriptor, value) }
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: Substring) {
        ValueRecorder.result(descriptor, .substring, v)
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: Substring?) {
        if let v { recordResult(descriptor, v) } else { ValueRecorder.result(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: Substring) {
        if tracing { recordResult(descriptor, value) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: Substring?) {
        if tracing { recordResult(descriptor, value) }
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: Character) {
        ValueRecorder.result(descriptor, .character, String(v))
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: Character?) {
        if let v { recordResult(descriptor, v) } else { ValueRecorder.result(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: Character) {
        if tracing { recordResult(descriptor, value) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: Character?) {
        if tracing { recordResult(descriptor, value) }
    }

    // Int128, UInt128 and Float16: by their text (ValueArguments.swift says why).
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: Int128) {
        ValueRecorder.result(descriptor, .described, String(v))
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: Int128?) {
        if let v { recordResult(descriptor, v) } else { ValueRecorder.result(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: Int128) {
        if tracing { recordResult(descriptor, value) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: Int128?) {
        if tracing { recordResult(descriptor, value) }
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: UInt128) {
        ValueRecorder.result(descriptor, .described, String(v))
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: UInt128?) {
        if let v { recordResult(descriptor, v) } else { ValueRecorder.result(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: UInt128) {
        if tracing { recordResult(descriptor, value) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: UInt128?) {
        if tracing { recordResult(descriptor, value) }
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: Float16) {
        ValueRecorder.result(descriptor, .described, String(v))
    }
    @usableFromInline static func recordResult(_ descriptor: StaticString, _ v: Float16?) {
        if let v { recordResult(descriptor, v) } else { ValueRecorder.result(descriptor, .nilValue, bits: 0) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: Float16) {
        if tracing { recordResult(descriptor, value) }
    }
    @_transparent public static func result(_ descriptor: StaticString, _ value: Float16?) {
        if tracing { recordResult(descriptor, value) }
    }
}
