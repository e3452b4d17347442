import TrailFormat

#if canImport(Glibc)
import Glibc
#endif

/// An export that lost something, or could not start: the message names the endpoint or file and says how
/// many items were not sent.
public struct ExportFailure: Error, CustomStringConvertible, Sendable {
    public var description: String
    /// Items that did not reach the destination.
    public var unsent: Int

    public init(_ description: String, unsent: Int = 0) {
        self.description = description
        self.unsent = unsent
    }
}
