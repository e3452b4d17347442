/// A verb that fails throws this; the runner prints it on standard error and exits with `status`. Verbs
/// print no errors of their own.
public struct VerbFailure: Error {
    public var message: String
    public var status: Int32
    /// The message names the input it is about (`path:line:col: error: ...`) and is printed as is; other
    /// messages follow `trail <verb>: `.
    public var namesInput = false

    public init(_ message: String, status: Int32 = 1) {
        self.message = message
        self.status = status
    }

    /// A problem in an input, printed as is: the message starts with the input's name.
    public static func input(_ message: String, status: Int32 = 1) -> VerbFailure {
        var failure = VerbFailure(message, status: status)
        failure.namesInput = true
        return failure
    }
}
