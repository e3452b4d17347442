import Foundation
import TrailRewriter

#if canImport(Glibc)
import Glibc
#endif

public enum BatchOperation: Sendable {
    case instrument(InstrumentSettings)
    case strip
}
