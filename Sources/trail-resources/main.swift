#if canImport(Glibc)
import Glibc
#endif
import TrailCommandLine
import TrailResourcesVerb

/// `trail resources` in a lean binary for the TrailResources plugin, which runs it once per XML file: without
/// SwiftSyntax and libdw to load, each run starts in a few milliseconds rather than `trail`'s twenty.
exit(runVerb(resourcesVerb, arguments: Array(CommandLine.arguments.dropFirst())))
