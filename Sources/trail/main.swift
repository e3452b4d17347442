#if canImport(Glibc)
import Glibc
#endif
import TrailCommandLine
import TrailSymbolizeVerb

/// `trail <verb> ...`: each verb parses its arguments and calls a library. The viewers live here, in a static
/// binary that starts in a millisecond or two; the verbs that parse Swift or XML are handed to `trail-rewrite`
/// and `trail-resources` beside it.
let verbs: [Verb] = [recordVerb, replayVerb, reportVerb, exportVerb, flamegraphVerb, symbolizeVerb]
let forwarded = ForwardedVerbs.all
let listed = (forwarded.map { ($0.name, $0.summary) } + verbs.map { ($0.name, $0.summary) })

let overview = """
    trail: build-time function tracing and logging for Swift.

    Usage: trail <verb> [options] [arguments]

    Verbs:
    \(listed.map { "  \($0.0.padded(to: 12))\($0.1)" }.joined(separator: "\n"))

    Run 'trail help <verb>' or 'trail <verb> --help' for a verb's options; 'trail --version' for the release.

    Run-time environment of an instrumented program (see Docs/runtime.md):
      TRAIL_TRACE=off|log|record   off by default; log (or 1): a line per entry and exit; record: a binary trace
      TRAIL_TRACE_FILE=PATTERN     where traces go: %p pid, %e executable, %h host, %t start time, %%
                                   (default trail-traces/%e-%t-%p.trace, or the log folder after bootstrap)
      TRAIL_TRACE_MAX_SIZE=SIZE    the most a trace takes (default 1G, at most a tenth of the free space)
      TRAIL_TRACE_KEEP=last|first  a full trace overwrites its oldest records (last) or stops (first)
      TRAIL_TRACE_KEEP_FILES=N, TRAIL_TRACE_KEEP_TOTAL=SIZE   older traces pruned (1000, 4G)
      TRAIL_TRACE_BUFFER=SIZE      ring per thread (default 32M)
      TRAIL_TRACE_FILTER=GLOBS     trace only these functions and what they call
      TRAIL_TRACE_EXCLUDE=GLOBS    do not trace these functions
      TRAIL_TRACE_DEPTH=N          trace only calls less deep than N
      TRAIL_LOG=console|file|tee   where Trail.bootstrap sends log lines and stderr
      TRAIL_LOG_FORMAT=text|json   text lines (default) or one JSON object per line (Docs/log-format.md)
      TRAIL_LOG_DIR, TRAIL_LOG_LEVEL, TRAIL_LOG_MAX_SIZE, TRAIL_LOG_MAX_AGE, TRAIL_LOG_MAX_FILES,
      TRAIL_LOG_MAX_TOTAL, TRAIL_LOG_FLUSH_MS, TRAIL_LOG_DURABLE=1, TRAIL_CRASH=0, TRAIL_APP_VERSION
    Sizes are 65536, 64K, 10M or 1G; for every limit (sizes, counts, depth), 0 means no limit. Switches take
    1/0, true/false, yes/no or on/off. A value that does not parse is reported, naming the variable and the value.
    """

exit(runVerbs(verbs, forwarded: forwarded, arguments: Array(CommandLine.arguments.dropFirst()), overview: overview))
