/// A problem in one input, at a place in it: printed as `path:line:column: error: message`, as compilers do,
/// so that editors and the build log point at it.
public struct ResourceError: Error, Equatable, CustomStringConvertible {
    public var path: String
    public var line: Int
    public var column: Int
    public var message: String

    public init(path: String, line: Int = 1, column: Int = 1, message: String) {
        self.path = path
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String { "\(path):\(line):\(column): error: \(message)" }
}

/// Every problem found in one run, so that one build shows them all.
public struct ResourceErrors: Error, CustomStringConvertible {
    public var errors: [ResourceError]
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
