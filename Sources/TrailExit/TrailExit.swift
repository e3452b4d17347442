// The exit of a synchronous body that is one value: `Trail.enter(site); return value ~>| Trail.Exit()`. An
// operator, not a call around the value: the return expression then starts where the value does, so a type
// error in it is reported at the same line and column, with the same words, as in an untraced build. Its module
// is imported whole by traced files (an operator cannot be imported by name), so it declares nothing else.
public import Trail

/// Below assignment, the lowest standard precedence: the whole value is the left operand.
precedencegroup TrailExitPrecedence {
    lowerThan: AssignmentPrecedence
}

infix operator ~>| : TrailExitPrecedence

/// Records the exit of the innermost synchronous function and gives back `value`. Any value passes: copyable or
/// not, escapable or not (its lifetime is the argument's).
@_transparent
@_lifetime(copy value)
public func ~>| <Value: ~Copyable & ~Escapable>(value: consuming Value, exit: Trail.Exit) -> Value {
    Trail.exit()
    return value
}
