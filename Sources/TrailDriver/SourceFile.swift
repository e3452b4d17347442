import Foundation
import TrailRewriter

#if canImport(Glibc)
import Glibc
#endif

/// One input file: where it is, how it is shown, and where it sits below the path it was found from.
public struct SourceFile: Sendable {
    public var path: String
    /// Relative to the command-line path it was found under (the file name for a file given directly).
    public var relativePath: String
    public var module: String
}
