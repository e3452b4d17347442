import SwiftDiagnostics
import SwiftParserDiagnostics
import SwiftSyntax
import TrailFormat

/// Text inserted at, or replacing a range from, a UTF-8 offset of the original: the rewriter's edits, and
/// `trail setup`'s and the shadow copy's edits of a manifest.
public struct Edit: Sendable {
    public var offset: Int
    public var length = 0
    public var text: String

    public init(offset: Int, length: Int = 0, text: String = "") {
        self.offset = offset
        self.length = length
        self.text = text
    }

    public static func apply(_ edits: [Edit], to bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBufferPointer { apply(edits, to: $0) }
    }

    /// Applies edits in offset order; edits at the same offset keep the order they were made in.
    static func apply(_ edits: [Edit], to source: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        let sorted = edits.enumerated().sorted { ($0.element.offset, $0.offset) < ($1.element.offset, $1.offset) }
        var out: [UInt8] = []
        out.reserveCapacity(source.count + edits.count * 96)
        var cursor = 0
        for (_, edit) in sorted {
            out.append(contentsOf: source[cursor ..< edit.offset])
            out.append(contentsOf: edit.text.utf8)
            cursor = edit.offset + edit.length
        }
        out.append(contentsOf: source[cursor...])
        return out
    }
}
