// The exit of a synchronous body that is one value: `Trail.enter(site); return value ~>| Trail.TypedExit<R>()`,
// where `R` is the body's written result type. An operator, not a call around the value: the return expression
// then starts where the value does, so an error in it is reported at the same line and column as in an
// untraced build. Its module is imported whole by traced files (an operator cannot be imported by name), so it
// declares nothing else: the exit operators, and with values theirs (ValueExits.swift, ValueReturns.swift).
public import Trail

/// Below assignment, the lowest standard precedence: the whole value is the left operand.
precedencegroup TrailExitPrecedence {
    lowerThan: AssignmentPrecedence
}

infix operator ~>| : TrailExitPrecedence

/// Records the exit of the innermost synchronous function and gives back `value`, typed as the body's written
/// result type. Any value passes: copyable or not, escapable or not (its lifetime is the argument's).
///
/// `Value` is fixed by the right operand before the value is looked at, so the value is checked against the
/// result type as a bare `return` checks it: a closure gets its `@Sendable` or global actor from it, a function
/// reference, a tuple's labels or a literal their type; and since `Value` appears in both operands, an
/// existential is not opened (SE-0352), which erased `any P.Type` to `any P`. An operator's argument, unlike a
/// `return`, does not convert to `AnyHashable`: the rewriter writes `Trail.Exit()` for such types.
@_transparent
@_lifetime(copy value)
public func ~>| <Value: ~Copyable & ~Escapable>(value: consuming Value, exit: Trail.TypedExit<Value>) -> Value {
    Trail.exit()
    return value
}

/// The same for a result type that the rewriter cannot write in an expression (`some P`, `T!`) or that names
/// `AnyHashable`: `Value` is the value's own type, converted to the result type by the `return`.
@_transparent
@_lifetime(copy value)
public func ~>| <Value: ~Copyable & ~Escapable>(value: consuming Value, exit: Trail.Exit) -> Value {
    Trail.exit()
    return value
}
