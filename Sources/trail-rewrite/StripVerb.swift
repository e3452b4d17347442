import TrailCommandLine
import TrailDriver

let stripVerb = Verb(
    name: "strip",
    summary: ForwardedVerbs.strip.summary,
    usage: "[--in-place | --output DIR | --output-file FILE | --dry-run] [options] PATH...",
    details: "Only text inside /*<trail*/ ... /*trail>*/ comment markers is removed; user code is never touched.",
    options: pathOptions,
    run: { arguments in try runBatch(arguments, .strip, verb: "strip", done: "stripped") })
