import Foundation
import TrailCommandLine
import TrailResourcesVerb
import TrailSymbolizeVerb

/// `trail <verb> ...`: each verb parses its arguments and calls a library.
let verbs: [Verb] = [instrumentVerb, stripVerb, scanVerb, setupVerb, replayVerb, reportVerb, exportVerb, flamegraphVerb, symbolizeVerb, resourcesVerb]

let overview = """
    trail: build-time function tracing and logging for Swift.

    Usage: trail <verb> [options] [arguments]

    Verbs:
    \(verbs.map { "  \($0.name.padding(toLength: 12, withPad: " ", startingAt: 0))\($0.summary)" }.joined(separator: "\n"))

    Run 'trail <verb> --help' for a verb's options.

    Run-time environment of an instrumented program (see README.md):
      TRAIL_TRACE=off|log|record   off by default; log (or 1): a line per entry and exit; record: a binary trace
      TRAIL_TRACE_FILE=PATH        where record mode writes (default ./<program>.trace, or beside the log)
      TRAIL_TRACE_BUFFER=SIZE      ring per thread (default 32M)
      TRAIL_TRACE_FILTER=GLOBS     trace only these functions and what they call
      TRAIL_TRACE_EXCLUDE=GLOBS    do not trace these functions
      TRAIL_TRACE_DEPTH=N          trace only calls less deep than N
      TRAIL_LOG=console|file|tee   where Trail.bootstrap sends log lines and stderr
      TRAIL_LOG_FORMAT=text|json   text lines (default) or one JSON object per line (Docs/log-format.md)
      TRAIL_LOG_DIR, TRAIL_LOG_LEVEL, TRAIL_LOG_MAX_SIZE, TRAIL_LOG_MAX_AGE, TRAIL_LOG_MAX_FILES,
      TRAIL_LOG_MAX_TOTAL, TRAIL_LOG_FLUSH_MS, TRAIL_LOG_DURABLE=1, TRAIL_CRASH=0, TRAIL_APP_VERSION
    """

exit(runVerbs(verbs, arguments: Array(CommandLine.arguments.dropFirst()), overview: overview))
