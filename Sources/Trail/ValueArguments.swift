// Values (issue 41): what a build with values (`trail instrument --values`) inserts records a call's arguments.
// The entry asks the runtime whether this call records values, and only then are the arguments passed:
//
//     if Trail.tracing, Trail.enterWithValues("App.fib(n:) @ App/Fib.swift:3", 1) { Trail.value("n: Int", n) };
//
// Each argument picks its recorder by overload at compile time: the cheap types are recorded raw, an optional of
// one as it or nil, and anything else (the generic fallback) by the written type in its descriptor alone, so no
// user code runs and nothing is copied: the fallback borrows, whatever the type. No overload takes a raw pointer
// (OpaquePointer only): an array or a string would be converted to one, with a warning, rather than take the
// fallback; the zoo's variadic `String...` is such an argument. A parameter written as a pointer type gets
// `Trail.pointer` instead, which the rewriter picks by that written type.
public import CTrailHooks
internal import CTrailShim

extension Trail {
    /// `enter(site)` with tracing on (`tracing` is tested first), then whether this call records its values,
    /// `count` of them.
    public static func enterWithValues(_ site: StaticString, _ count: UInt32) -> Bool {
        trail_values_enter(site.utf8Start, count) != 0
    }

    /// The entry of a call that records only its result or error: `enter(site)`, its frame marked for values.
    @_transparent
    public static func enterValues(_ site: StaticString) {
        if tracing { _ = enterWithValues(site, 0) }
    }

    /// What builds with values wrote before `tracing` (`if Trail.enterValues(site, count) { … }`), kept so that
    /// sources instrumented by an earlier `trail` still build.
    @_transparent
    public static func enterValues(_ site: StaticString, _ count: UInt32) -> Bool {
        if tracing { return enterWithValues(site, count) }
        return false
    }

    /// `enterAsync(site)` in a build with values: the span says whether this call records its values, `count`
    /// arguments (`Span.recordsValues`), which follow it as a synchronous call's do.
    @_transparent
    public static func enterAsync(_ site: StaticString, values count: UInt32) -> Span {
        guard tracing else { return Span(trail_span(word: 0, start: 0)) }
        return enterAsyncRecordingValues(site, count)
    }

    @usableFromInline
    static func enterAsyncRecordingValues(_ site: StaticString, _ count: UInt32) -> Span {
        Span(trail_values_enter_async(site.utf8Start, count))
    }

    /// A parameter whose value is never read (a closure, an `@autoclosure`, `_: Int`, a pack): its written type
    /// holds its place among the values shown.
    public static func unread(_ descriptor: StaticString) {
        ValueRecorder.bits(descriptor, .typeOnly, .argument, 0)
    }

    /// An argument whose label or name is on the rewriter's redaction list: its value is never passed.
    public static func redacted(_ descriptor: StaticString) {
        ValueRecorder.bits(descriptor, .redacted, .argument, 0)
    }

    /// Any other argument: its descriptor's written type is what is shown. `borrowing` and the suppressed
    /// constraints keep a noncopyable or nonescapable value where it is.
    public static func value<Value: ~Copyable & ~Escapable>(_ descriptor: StaticString, _ v: borrowing Value) {
        ValueRecorder.bits(descriptor, .typeOnly, .argument, 0)
    }

    /// Any other copyable value: by its description when `TRAIL_VALUES_DESCRIBE` names its written type, else as
    /// the fallback above. The overload with fewer suppressed constraints wins, and both take the value as it is.
    public static func value<Value>(_ descriptor: StaticString, _ v: Value) {
        guard let text = ValueRecorder.description(descriptor, v) else {
            return ValueRecorder.bits(descriptor, .typeOnly, .argument, 0)
        }
        ValueRecorder.string(descriptor, .described, .argument, text)
    }

    /// An optional of any other type: `nil` when it holds none, else as the overload above for the value it holds.
    /// More specialized than it, so it is chosen for an optional argument alone.
    public static func value<Wrapped>(_ descriptor: StaticString, _ v: Wrapped?) {
        guard let v else { return ValueRecorder.bits(descriptor, .nilValue, .argument, 0) }
        value(descriptor, v)
    }

    public static func value(_ descriptor: StaticString, _ v: Int) {
        ValueRecorder.bits(descriptor, .int64, .argument, UInt64(bitPattern: Int64(v)))
    }
    public static func value(_ descriptor: StaticString, _ v: Int?) {
        if let v { value(descriptor, v) } else { ValueRecorder.bits(descriptor, .nilValue, .argument, 0) }
    }
    public static func value(_ descriptor: StaticString, _ v: Int8) {
        ValueRecorder.bits(descriptor, .int8, .argument, UInt64(bitPattern: Int64(v)))
    }
    public static func value(_ descriptor: StaticString, _ v: Int8?) {
        if let v { value(descriptor, v) } else { ValueRecorder.bits(descriptor, .nilValue, .argument, 0) }
    }
    public static func value(_ descriptor: StaticString, _ v: Int16) {
        ValueRecorder.bits(descriptor, .int16, .argument, UInt64(bitPattern: Int64(v)))
    }
    public static func value(_ descriptor: StaticString, _ v: Int16?) {
        if let v { value(descriptor, v) } else { ValueRecorder.bits(descriptor, .nilValue, .argument, 0) }
    }
    public static func value(_ descriptor: StaticString, _ v: Int32) {
        ValueRecorder.bits(descriptor, .int32, .argument, UInt64(bitPattern: Int64(v)))
    }
    public static func value(_ descriptor: StaticString, _ v: Int32?) {
        if let v { value(descriptor, v) } else { ValueRecorder.bits(descriptor, .nilValue, .argument, 0) }
    }
    public static func value(_ descriptor: StaticString, _ v: Int64) {
        ValueRecorder.bits(descriptor, .int64, .argument, UInt64(bitPattern: v))
    }
    public static func value(_ descriptor: StaticString, _ v: Int64?) {
        if let v { value(descriptor, v) } else { ValueRecorder.bits(descriptor, .nilValue, .argument, 0) }
    }
    public static func value(_ descriptor: StaticString, _ v: UInt) {
        ValueRecorder.bits(descriptor, .uint64, .argument, UInt64(v))
    }
    public static func value(_ descriptor: StaticString, _ v: UInt?) {
        if let v { value(descriptor, v) } else { ValueRecorder.bits(descriptor, .nilValue, .argument, 0) }
    }
    public static func value(_ descriptor: StaticString, _ v: UInt8) {
        ValueRecorder.bits(descriptor, .uint8, .argument, UInt64(v))
    }
    public static func value(_ descriptor: StaticString, _ v: UInt8?) {
        if let v { value(descriptor, v) } else { ValueRecorder.bits(descriptor, .nilValue, .argument, 0) }
    }
    public static func value(_ descriptor: StaticString, _ v: UInt16) {
        ValueRecorder.bits(descriptor, .uint16, .argument, UInt64(v))
    }
    public static func value(_ descriptor: StaticString, _ v: UInt16?) {
        if let v { value(descriptor, v) } else { ValueRecorder.bits(descriptor, .nilValue, .argument, 0) }
    }
    public static func value(_ descriptor: StaticString, _ v: UInt32) {
        ValueRecorder.bits(descriptor, .uint32, .argument, UInt64(v))
    }
    public static func value(_ descriptor: StaticString, _ v: UInt32?) {
        if let v { value(descriptor, v) } else { ValueRecorder.bits(descriptor, .nilValue, .argument, 0) }
    }
    public static func value(_ descriptor: StaticString, _ v: UInt64) {
        ValueRecorder.bits(descriptor, .uint64, .argument, v)
    }
    public static func value(_ descriptor: StaticString, _ v: UInt64?) {
        if let v { value(descriptor, v) } else { ValueRecorder.bits(descriptor, .nilValue, .argument, 0) }
    }
    public static func value(_ descriptor: StaticString, _ v: Float) {
        ValueRecorder.bits(descriptor, .float32, .argument, UInt64(v.bitPattern))
    }
    public static func value(_ descriptor: StaticString, _ v: Float?) {
        if let v { value(descriptor, v) } else { ValueRecorder.bits(descriptor, .nilValue, .argument, 0) }
    }
    public static func value(_ descriptor: StaticString, _ v: Double) {
        ValueRecorder.bits(descriptor, .float64, .argument, v.bitPattern)
    }
    public static func value(_ descriptor: StaticString, _ v: Double?) {
        if let v { value(descriptor, v) } else { ValueRecorder.bits(descriptor, .nilValue, .argument, 0) }
    }
    public static func value(_ descriptor: StaticString, _ v: Bool) {
        ValueRecorder.bits(descriptor, .bool, .argument, v ? 1 : 0)
    }
    public static func value(_ descriptor: StaticString, _ v: Bool?) {
        if let v { value(descriptor, v) } else { ValueRecorder.bits(descriptor, .nilValue, .argument, 0) }
    }
    public static func value(_ descriptor: StaticString, _ v: OpaquePointer) {
        ValueRecorder.bits(descriptor, .pointer, .argument, UInt64(UInt(bitPattern: v)))
    }
    public static func value(_ descriptor: StaticString, _ v: OpaquePointer?) {
        if let v { value(descriptor, v) } else { ValueRecorder.bits(descriptor, .nilValue, .argument, 0) }
    }
    /// An argument written as a standard pointer type or an optional of one (the rewriter picks this by the
    /// written type): its address, or nil. Apart from `value`, which must not take a pointer.
    public static func pointer(_ descriptor: StaticString, _ v: UnsafeRawPointer?) {
        if let v {
            ValueRecorder.bits(descriptor, .pointer, .argument, UInt64(UInt(bitPattern: v)))
        } else {
            ValueRecorder.bits(descriptor, .nilValue, .argument, 0)
        }
    }
    public static func value(_ descriptor: StaticString, _ v: String) {
        ValueRecorder.string(descriptor, .string, .argument, v)
    }
    public static func value(_ descriptor: StaticString, _ v: String?) {
        if let v { value(descriptor, v) } else { ValueRecorder.bits(descriptor, .nilValue, .argument, 0) }
    }
    public static func value(_ descriptor: StaticString, _ v: Substring) {
        ValueRecorder.string(descriptor, .substring, .argument, v)
    }
    public static func value(_ descriptor: StaticString, _ v: Substring?) {
        if let v { value(descriptor, v) } else { ValueRecorder.bits(descriptor, .nilValue, .argument, 0) }
    }
    public static func value(_ descriptor: StaticString, _ v: Character) {
        ValueRecorder.string(descriptor, .character, .argument, String(v))
    }
    public static func value(_ descriptor: StaticString, _ v: Character?) {
        if let v { value(descriptor, v) } else { ValueRecorder.bits(descriptor, .nilValue, .argument, 0) }
    }

    // Int128, UInt128 and Float16: by their text, as a described value (wider than a record's payload, or shown
    // with Float16's own rounding). Rarer than the types above, they pay for formatting when they are recorded.
    public static func value(_ descriptor: StaticString, _ v: Int128) {
        ValueRecorder.string(descriptor, .described, .argument, String(v))
    }
    public static func value(_ descriptor: StaticString, _ v: Int128?) {
        if let v { value(descriptor, v) } else { ValueRecorder.bits(descriptor, .nilValue, .argument, 0) }
    }
    public static func value(_ descriptor: StaticString, _ v: UInt128) {
        ValueRecorder.string(descriptor, .described, .argument, String(v))
    }
    public static func value(_ descriptor: StaticString, _ v: UInt128?) {
        if let v { value(descriptor, v) } else { ValueRecorder.bits(descriptor, .nilValue, .argument, 0) }
    }
    public static func value(_ descriptor: StaticString, _ v: Float16) {
        ValueRecorder.string(descriptor, .described, .argument, String(v))
    }
    public static func value(_ descriptor: StaticString, _ v: Float16?) {
        if let v { value(descriptor, v) } else { ValueRecorder.bits(descriptor, .nilValue, .argument, 0) }
    }
}
