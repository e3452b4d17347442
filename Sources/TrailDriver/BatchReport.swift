import Foundation
import TrailRewriter

#if canImport(Glibc)
import Glibc
#endif

public struct BatchReport: Sendable {
    public var changed = 0
    public var unchanged = 0
    public var skipped = 0
    public var bodies = 0
    public var errors: [SourceError] = []
}
