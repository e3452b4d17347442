#if canImport(Glibc)
import Glibc
#endif
import TrailCommandLine
import TrailSymbolizeVerb

/// `trail symbolize` in a lean binary: no SwiftSyntax, no Foundation and a static standard library, so a
/// crash pipeline pays a few milliseconds of start-up instead of `trail`'s twenty.
exit(runVerb(symbolizeVerb, arguments: Array(CommandLine.arguments.dropFirst())))
