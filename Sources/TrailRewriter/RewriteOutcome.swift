import SwiftDiagnostics
import SwiftParserDiagnostics
import SwiftSyntax
import TrailFormat

/// The result of rewriting one file.
public enum RewriteOutcome: Equatable, Sendable {
    case changed([UInt8], bodies: Int)
    case unchanged
    case skipped(String)
}
