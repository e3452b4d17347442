import TrailCommandLine
import TrailResourcesVerb

#if canImport(Glibc)
import Glibc
#endif

/// `trail resources` in a lean binary for the TrailResources plugin, which runs it once per XML file: it
/// loads neither SwiftSyntax nor libdw, which it does not need.
exit(runVerb(resourcesVerb, arguments: Array(CommandLine.arguments.dropFirst())))
