import TrailCommandLine

#if canImport(Glibc)
import Glibc
#endif

/// The verbs that parse Swift, which `trail` hands on: SwiftSyntax takes most of this binary's start-up, so
/// the viewers in `trail` do without it. The TrailPlugin and TrailCommand plugins run this binary directly.
let verbs: [Verb] = [testVerb, runVerb, instrumentVerb, stripVerb, scanVerb, setupVerb]

let overview = """
    trail-rewrite: the Swift-parsing verbs of trail, which 'trail <verb>' runs.

    Usage: trail-rewrite <verb> [options] [arguments]

    Verbs:
    \(verbs.map { "  \($0.name.padded(to: 12))\($0.summary)" }.joined(separator: "\n"))
    """

exit(runVerbs(verbs, arguments: Array(CommandLine.arguments.dropFirst()), overview: overview))
