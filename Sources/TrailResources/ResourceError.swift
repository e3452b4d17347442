import TrailFormat

/// A problem in one input, at a place in it (`path:line:column: error: message`).
public typealias ResourceError = InputError

/// Every problem found in one run, so that one build shows them all.
public struct ResourceErrors: Error, CustomStringConvertible {
    public var errors: [ResourceError]
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
