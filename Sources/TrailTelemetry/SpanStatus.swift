public struct SpanStatus: Sendable {
    /// STATUS_CODE_UNSET 0, OK 1, ERROR 2.
    public enum Code: Int, Sendable {
        case unset = 0
        case ok = 1
        case error = 2
    }
    public var code: Code
    public var message: String?

    public init(code: Code, message: String? = nil) {
        self.code = code
        self.message = message
    }

    public static let unset = SpanStatus(code: .unset)
}
