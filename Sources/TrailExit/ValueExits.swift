// The exit operator of a one-value body in a build with values: `return value ~>| Trail.TypedValueExit<R>("-> R")`
// records the result with the exit. As with `TypedExit<R>`, `R` is written, so every overload here checks the value
// against `R` as a bare `return` does: the concrete ones take exactly `R` (only the one whose type is `R` applies),
// and the generic one has `Value` in both operands, so no existential is opened. Which applies changes only how the
// result is recorded, never the value's type.
public import Trail

/// Any other result: recorded by its written type.
@_transparent
@_lifetime(copy value)
public func ~>| <Value: ~Copyable & ~Escapable>(value: consuming Value, exit: Trail.TypedValueExit<Value>) -> Value {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

/// The result of a function or property named like a secret (`apiToken()`): recorded as `<redacted>`, never passed.
@_transparent
@_lifetime(copy value)
public func ~>| <Value: ~Copyable & ~Escapable>(value: consuming Value, exit: Trail.RedactedValueExit<Value>) -> Value {
    Trail.exitRedacted(exit.descriptor)
    return value
}

/// Any other copyable, escapable result: by its description when TRAIL_VALUES_DESCRIBE names its written type. The
/// more constrained overload wins, with the same `Value` on both sides.
@_transparent
public func ~>| <Value>(value: Value, exit: Trail.TypedValueExit<Value>) -> Value {
    Trail.exit(exit.descriptor, describing: value)
    return value
}

/// An optional of any other type: `nil` when it holds none, else as above for the value it holds.
@_transparent
public func ~>| <Wrapped>(value: Wrapped?, exit: Trail.TypedValueExit<Wrapped?>) -> Wrapped? {
    Trail.exit(exit.descriptor, optional: value)
    return value
}

@_transparent public func ~>| (value: Int, exit: Trail.TypedValueExit<Int>) -> Int {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: Int?, exit: Trail.TypedValueExit<Int?>) -> Int? {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: Int8, exit: Trail.TypedValueExit<Int8>) -> Int8 {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: Int8?, exit: Trail.TypedValueExit<Int8?>) -> Int8? {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: Int16, exit: Trail.TypedValueExit<Int16>) -> Int16 {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: Int16?, exit: Trail.TypedValueExit<Int16?>) -> Int16? {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: Int32, exit: Trail.TypedValueExit<Int32>) -> Int32 {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: Int32?, exit: Trail.TypedValueExit<Int32?>) -> Int32? {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: Int64, exit: Trail.TypedValueExit<Int64>) -> Int64 {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: Int64?, exit: Trail.TypedValueExit<Int64?>) -> Int64? {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: UInt, exit: Trail.TypedValueExit<UInt>) -> UInt {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: UInt?, exit: Trail.TypedValueExit<UInt?>) -> UInt? {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: UInt8, exit: Trail.TypedValueExit<UInt8>) -> UInt8 {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: UInt8?, exit: Trail.TypedValueExit<UInt8?>) -> UInt8? {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: UInt16, exit: Trail.TypedValueExit<UInt16>) -> UInt16 {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: UInt16?, exit: Trail.TypedValueExit<UInt16?>) -> UInt16? {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: UInt32, exit: Trail.TypedValueExit<UInt32>) -> UInt32 {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: UInt32?, exit: Trail.TypedValueExit<UInt32?>) -> UInt32? {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: UInt64, exit: Trail.TypedValueExit<UInt64>) -> UInt64 {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: UInt64?, exit: Trail.TypedValueExit<UInt64?>) -> UInt64? {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: Float, exit: Trail.TypedValueExit<Float>) -> Float {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: Float?, exit: Trail.TypedValueExit<Float?>) -> Float? {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: Double, exit: Trail.TypedValueExit<Double>) -> Double {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: Double?, exit: Trail.TypedValueExit<Double?>) -> Double? {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: Bool, exit: Trail.TypedValueExit<Bool>) -> Bool {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: Bool?, exit: Trail.TypedValueExit<Bool?>) -> Bool? {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

/// Typed pointers: their address, as a raw pointer's.
@_transparent public func ~>| <Pointee: ~Copyable>(
    value: UnsafePointer<Pointee>, exit: Trail.TypedValueExit<UnsafePointer<Pointee>>
) -> UnsafePointer<Pointee> {
    Trail.exit(exit.descriptor, returning: UnsafeRawPointer(value))
    return value
}

@_transparent public func ~>| <Pointee: ~Copyable>(
    value: UnsafePointer<Pointee>?, exit: Trail.TypedValueExit<UnsafePointer<Pointee>?>
) -> UnsafePointer<Pointee>? {
    Trail.exit(exit.descriptor, returning: UnsafeRawPointer(value))
    return value
}

@_transparent public func ~>| <Pointee: ~Copyable>(
    value: UnsafeMutablePointer<Pointee>, exit: Trail.TypedValueExit<UnsafeMutablePointer<Pointee>>
) -> UnsafeMutablePointer<Pointee> {
    Trail.exit(exit.descriptor, returning: UnsafeRawPointer(value))
    return value
}

@_transparent public func ~>| <Pointee: ~Copyable>(
    value: UnsafeMutablePointer<Pointee>?, exit: Trail.TypedValueExit<UnsafeMutablePointer<Pointee>?>
) -> UnsafeMutablePointer<Pointee>? {
    Trail.exit(exit.descriptor, returning: UnsafeRawPointer(value))
    return value
}

@_transparent public func ~>| (value: UnsafeRawPointer, exit: Trail.TypedValueExit<UnsafeRawPointer>)
    -> UnsafeRawPointer
{
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: UnsafeRawPointer?, exit: Trail.TypedValueExit<UnsafeRawPointer?>)
    -> UnsafeRawPointer?
{
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: UnsafeMutableRawPointer, exit: Trail.TypedValueExit<UnsafeMutableRawPointer>)
    -> UnsafeMutableRawPointer
{
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: UnsafeMutableRawPointer?, exit: Trail.TypedValueExit<UnsafeMutableRawPointer?>)
    -> UnsafeMutableRawPointer?
{
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: OpaquePointer, exit: Trail.TypedValueExit<OpaquePointer>) -> OpaquePointer {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: OpaquePointer?, exit: Trail.TypedValueExit<OpaquePointer?>) -> OpaquePointer? {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: String, exit: Trail.TypedValueExit<String>) -> String {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: String?, exit: Trail.TypedValueExit<String?>) -> String? {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: Substring, exit: Trail.TypedValueExit<Substring>) -> Substring {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: Substring?, exit: Trail.TypedValueExit<Substring?>) -> Substring? {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: Character, exit: Trail.TypedValueExit<Character>) -> Character {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: Character?, exit: Trail.TypedValueExit<Character?>) -> Character? {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: Int128, exit: Trail.TypedValueExit<Int128>) -> Int128 {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: Int128?, exit: Trail.TypedValueExit<Int128?>) -> Int128? {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: UInt128, exit: Trail.TypedValueExit<UInt128>) -> UInt128 {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: UInt128?, exit: Trail.TypedValueExit<UInt128?>) -> UInt128? {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: Float16, exit: Trail.TypedValueExit<Float16>) -> Float16 {
    Trail.exit(exit.descriptor, returning: value)
    return value
}

@_transparent public func ~>| (value: Float16?, exit: Trail.TypedValueExit<Float16?>) -> Float16? {
    Trail.exit(exit.descriptor, returning: value)
    return value
}
