public struct UsageError: Error, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}
