/// The INFO chunk's `key=value` lines (Docs/trace-format.md): the keys, once, for the C writer
/// (`trail_format.h`'s `TRAIL_INFO_*`) and every reader.
public struct TraceInfo: Sendable {
    public enum Key: String, Sendable, CaseIterable {
        /// The executable's path.
        case executable = "exe"
        case pid
        case host
        /// The name traces and logs go by.
        case app
        /// The version `Trail.bootstrap` was given, when one was.
        case version
        /// The W3C `TRACEPARENT` the process started with (`TraceParent`).
        case traceparent
        /// The command line, its arguments joined by spaces, cut at `TRAIL_INFO_CMDLINE_MAX` bytes.
        case commandLine = "cmdline"
        /// The main executable's GNU build ID in hex, when it has one.
        case buildID = "build_id"
    }

    /// The longest `cmdline` the writer keeps, in bytes (`TRAIL_INFO_CMDLINE_MAX`).
    public static let commandLineMax = 1024

    public var entries: [(key: String, value: String)]

    /// Lines without `=` are skipped.
    public init(_ payload: UnsafeRawBufferPointer) {
        entries = String(decoding: payload, as: UTF8.self).split(separator: "\n").compactMap { line in
            line.firstIndex(of: "=").map { (String(line[..<$0]), String(line[line.index(after: $0)...])) }
        }
    }
}
