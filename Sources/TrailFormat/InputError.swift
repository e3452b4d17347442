/// A problem in an input file, printed as compilers print theirs, `path:line:column: error: message`, so that
/// editors and build logs point at it. The rewriter's and the resource generator's errors alike.
public struct InputError: Error, Equatable, CustomStringConvertible, Sendable {
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
