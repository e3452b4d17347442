import Foundation
import TrailRewriter

#if canImport(Glibc)
import Glibc
#endif

public struct BatchOptions: Sendable {
    public enum Destination: Sendable, Equatable {
        case inPlace
        /// Mirrors each file's relative path below this folder; unchanged files are copied too.
        case directory(String)
        /// Prints a unified diff and writes nothing.
        case dryRun
        /// Prints the rewritten text of a single file.
        case standardOutput
        /// Writes a single file's result here, changed or not.
        case file(String)
    }

    public var destination: Destination
    public var jobs: Int
    /// Starts the output with `#sourceLocation(file: <input>, line: 1)` so that diagnostics, `#fileID` and
    /// debug info name the original file, for copies compiled in its place (`Batch.directiveFile` decides
    /// the file named: a copy named `main.swift` names itself).
    public var lineDirective = false
    /// With `lineDirective`: the copy is `#if DEBUG <instrumented> #else <original> #endif`, so that
    /// release builds compile the user's code unchanged.
    public var debugOnly = false
    /// A status line on standard error while files are processed.
    public var progress = false

    /// Files processed at once unless told: the number of cores.
    public static var defaultJobs: Int { ProcessInfo.processInfo.activeProcessorCount }

    public init(
        destination: Destination, jobs: Int = BatchOptions.defaultJobs,
        lineDirective: Bool = false, debugOnly: Bool = false, progress: Bool = false
    ) {
        self.destination = destination
        self.jobs = max(1, jobs)
        self.lineDirective = lineDirective
        self.debugOnly = debugOnly
        self.progress = progress
    }
}
