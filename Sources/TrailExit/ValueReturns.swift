// The result of a body that keeps its `defer`, in a build with values: each `return value` of the body becomes
// `return value ~>> Trail.TypedResult<R>("-> R")`, which records the result and gives the value back; the `defer`
// records the exit. As with `~>|`, `R` is written, every overload takes exactly `R` on the left (the generic one has
// `Value` in both operands, so no existential is opened), and the value's type is never changed.
public import Trail

/// Below assignment, as `~>|`: the whole value is the left operand.
infix operator ~>> : TrailExitPrecedence

/// Any other result: recorded by its written type.
@_transparent
@_lifetime(copy value)
public func ~>> <Value: ~Copyable & ~Escapable>(value: consuming Value, result: Trail.TypedResult<Value>) -> Value {
    Trail.result(result.descriptor, value)
    return value
}

/// The result of a function or property named like a secret (`apiToken()`): recorded as `<redacted>`, never passed.
@_transparent
@_lifetime(copy value)
public func ~>> <Value: ~Copyable & ~Escapable>(value: consuming Value, result: Trail.RedactedResult<Value>) -> Value {
    Trail.resultRedacted(result.descriptor)
    return value
}

/// Any other copyable, escapable result: by its description when TRAIL_VALUES_DESCRIBE names its written type.
@_transparent
public func ~>> <Value>(value: Value, result: Trail.TypedResult<Value>) -> Value {
    Trail.result(result.descriptor, describing: value)
    return value
}

/// An optional of any other type: `nil` when it holds none, else as above for the value it holds. More specialized
/// than the one above, with `Wrapped?` in both operands, so it is chosen for an optional `R` alone.
@_transparent
public func ~>> <Wrapped>(value: Wrapped?, result: Trail.TypedResult<Wrapped?>) -> Wrapped? {
    Trail.result(result.descriptor, optional: value)
    return value
}

@_transparent public func ~>> (value: Int, result: Trail.TypedResult<Int>) -> Int {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: Int?, result: Trail.TypedResult<Int?>) -> Int? {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: Int8, result: Trail.TypedResult<Int8>) -> Int8 {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: Int8?, result: Trail.TypedResult<Int8?>) -> Int8? {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: Int16, result: Trail.TypedResult<Int16>) -> Int16 {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: Int16?, result: Trail.TypedResult<Int16?>) -> Int16? {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: Int32, result: Trail.TypedResult<Int32>) -> Int32 {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: Int32?, result: Trail.TypedResult<Int32?>) -> Int32? {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: Int64, result: Trail.TypedResult<Int64>) -> Int64 {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: Int64?, result: Trail.TypedResult<Int64?>) -> Int64? {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: UInt, result: Trail.TypedResult<UInt>) -> UInt {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: UInt?, result: Trail.TypedResult<UInt?>) -> UInt? {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: UInt8, result: Trail.TypedResult<UInt8>) -> UInt8 {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: UInt8?, result: Trail.TypedResult<UInt8?>) -> UInt8? {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: UInt16, result: Trail.TypedResult<UInt16>) -> UInt16 {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: UInt16?, result: Trail.TypedResult<UInt16?>) -> UInt16? {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: UInt32, result: Trail.TypedResult<UInt32>) -> UInt32 {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: UInt32?, result: Trail.TypedResult<UInt32?>) -> UInt32? {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: UInt64, result: Trail.TypedResult<UInt64>) -> UInt64 {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: UInt64?, result: Trail.TypedResult<UInt64?>) -> UInt64? {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: Float, result: Trail.TypedResult<Float>) -> Float {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: Float?, result: Trail.TypedResult<Float?>) -> Float? {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: Double, result: Trail.TypedResult<Double>) -> Double {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: Double?, result: Trail.TypedResult<Double?>) -> Double? {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: Bool, result: Trail.TypedResult<Bool>) -> Bool {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: Bool?, result: Trail.TypedResult<Bool?>) -> Bool? {
    Trail.result(result.descriptor, value)
    return value
}

/// Typed pointers: their address, as a raw pointer's.
@_transparent public func ~>> <Pointee: ~Copyable>(
    value: UnsafePointer<Pointee>, result: Trail.TypedResult<UnsafePointer<Pointee>>
) -> UnsafePointer<Pointee> {
    Trail.result(result.descriptor, UnsafeRawPointer(value))
    return value
}

@_transparent public func ~>> <Pointee: ~Copyable>(
    value: UnsafePointer<Pointee>?, result: Trail.TypedResult<UnsafePointer<Pointee>?>
) -> UnsafePointer<Pointee>? {
    Trail.result(result.descriptor, UnsafeRawPointer(value))
    return value
}

@_transparent public func ~>> <Pointee: ~Copyable>(
    value: UnsafeMutablePointer<Pointee>, result: Trail.TypedResult<UnsafeMutablePointer<Pointee>>
) -> UnsafeMutablePointer<Pointee> {
    Trail.result(result.descriptor, UnsafeRawPointer(value))
    return value
}

@_transparent public func ~>> <Pointee: ~Copyable>(
    value: UnsafeMutablePointer<Pointee>?, result: Trail.TypedResult<UnsafeMutablePointer<Pointee>?>
) -> UnsafeMutablePointer<Pointee>? {
    Trail.result(result.descriptor, UnsafeRawPointer(value))
    return value
}

@_transparent public func ~>> (value: UnsafeRawPointer, result: Trail.TypedResult<UnsafeRawPointer>) -> UnsafeRawPointer
{
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: UnsafeRawPointer?, result: Trail.TypedResult<UnsafeRawPointer?>)
    -> UnsafeRawPointer?
{
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: UnsafeMutableRawPointer, result: Trail.TypedResult<UnsafeMutableRawPointer>)
    -> UnsafeMutableRawPointer
{
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: UnsafeMutableRawPointer?, result: Trail.TypedResult<UnsafeMutableRawPointer?>)
    -> UnsafeMutableRawPointer?
{
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: OpaquePointer, result: Trail.TypedResult<OpaquePointer>) -> OpaquePointer {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: OpaquePointer?, result: Trail.TypedResult<OpaquePointer?>) -> OpaquePointer? {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: String, result: Trail.TypedResult<String>) -> String {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: String?, result: Trail.TypedResult<String?>) -> String? {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: Substring, result: Trail.TypedResult<Substring>) -> Substring {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: Substring?, result: Trail.TypedResult<Substring?>) -> Substring? {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: Character, result: Trail.TypedResult<Character>) -> Character {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: Character?, result: Trail.TypedResult<Character?>) -> Character? {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: Int128, result: Trail.TypedResult<Int128>) -> Int128 {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: Int128?, result: Trail.TypedResult<Int128?>) -> Int128? {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: UInt128, result: Trail.TypedResult<UInt128>) -> UInt128 {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: UInt128?, result: Trail.TypedResult<UInt128?>) -> UInt128? {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: Float16, result: Trail.TypedResult<Float16>) -> Float16 {
    Trail.result(result.descriptor, value)
    return value
}

@_transparent public func ~>> (value: Float16?, result: Trail.TypedResult<Float16?>) -> Float16? {
    Trail.result(result.descriptor, value)
    return value
}
