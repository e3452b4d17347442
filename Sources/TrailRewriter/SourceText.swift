import SwiftDiagnostics
import SwiftParserDiagnostics
import SwiftSyntax
import TrailFormat

/// One file's text as `instrument` reads it.
public struct SourceText: Sendable {
    public let path: String
    /// The text as given.
    public let bytes: [UInt8]
    /// `bytes` without what an earlier `instrument` inserted. Instrumenting is defined on this text, which makes
    /// it idempotent and refreshes stale names.
    public let unmarked: [UInt8]

    /// Refuses text that is not UTF-8, or that holds markers and does not parse.
    public init(_ bytes: [UInt8], path: String, experimentalFeatures: [String] = []) throws(SourceError) {
        try Rewriter.checkUTF8(bytes, path: path)
        var unmarked = bytes
        if Rewriter.contains(bytes, Marker.openBytes),
            case .changed(let stripped, _) = try Rewriter.strip(
                bytes, path: path, experimentalFeatures: experimentalFeatures)
        {
            unmarked = stripped
        }
        self.path = path
        self.bytes = bytes
        self.unmarked = unmarked
    }

    /// What the file itself declares: its Never functions apply to its own bodies too.
    public var declarations: Declarations { Declarations(scanning: unmarked) }
}
