import TrailCommandLine
import TrailSymbolizeVerb

#if canImport(Glibc)
import Glibc
#endif

/// `trail <verb> ...`: each verb parses its arguments and calls a library. The viewers live here, in a static
/// binary that starts in a millisecond or two; the verbs that parse Swift or XML are handed to `trail-rewrite`
/// and `trail-resources` beside it.
let verbs: [Verb] = [
    recordVerb, replayVerb, reportVerb, graphVerb, infoVerb, tuiVerb, exportVerb, flamegraphVerb, symbolizeVerb,
]
let forwarded = ForwardedVerbs.all
let listed = (forwarded.map { ($0.name, $0.summary) } + verbs.map { ($0.name, $0.summary) })

let overview = """
    trail: build-time function tracing and logging for Swift.

    Usage: trail <verb> [options] [arguments]

    Verbs:
    \(listed.map { "  \($0.0.padded(to: 12))\($0.1)" }.joined(separator: "\n"))

    Run 'trail help <verb>' or 'trail <verb> --help' for a verb's options; 'trail --version' for the release.

    Environment ('trail help settings'; Docs/settings.md):
    \(SettingsTable.text())
    """

// `trail help settings` prints the environment table alone; with --markdown, Docs/settings.md.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "help", arguments.dropFirst().first == "settings" {
    printOut(arguments.contains("--markdown") ? SettingsTable.markdown() : SettingsTable.text(indent: ""))
    exit(0)
}
exit(runVerbs(verbs, forwarded: forwarded, arguments: arguments, overview: overview))
