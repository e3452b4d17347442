import TrailCommandLine
import TrailSymbolizeVerb

#if canImport(Glibc)
import Glibc
#endif

/// `trail symbolize` in a lean binary: no SwiftSyntax, no Foundation and a static standard library, so a
/// crash pipeline pays the least start-up there is (`trail`, static too, also links Foundation).
exit(runVerb(symbolizeVerb, arguments: Array(CommandLine.arguments.dropFirst())))
