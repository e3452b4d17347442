// A module of its own whose public names are also public in Trail (swift-log has a `Logger` too): the
// instrumented zoo must still compile, so the inserted import brings in nothing but the `Trail` type.
public struct Logger {
    public var label: String
    public init(label: String) { self.label = label }
    public func info(_ message: String) { print("[\(label)] \(message)") }
}

public enum LogSink { case standardOutput }
