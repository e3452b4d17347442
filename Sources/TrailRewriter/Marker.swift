/// The exact text `instrument` inserts. Every insertion is wrapped in a pair of block comments, so `strip`
/// removes only what was inserted, and only where the comments are real trivia (never inside a string).
public enum Marker {
    static let open = "/*<trail*/"
    static let close = "/*trail>*/"
    static let openBytes = Array(open.utf8)

    /// File-level opt-out, checked as a comment.
    static let ignoreFile = "trail:ignore-file"
    /// Declaration-level opt-out, in the comments before a declaration.
    static let ignoreDecl = "trail:ignore"

    static func wrap(_ code: String) -> String { open + code + close }

    /// Only the `Trail` type: a whole-module import would put the runtime's `Logger` beside, say, swift-log's,
    /// and make the name ambiguous in the user's file. `TrailExit` declares only the exit operator
    /// (`foldedExitCode`), which no import can name, so it comes whole.
    static let importTrail = wrap(importCode + " ")
    static let importCode = "import enum Trail.Trail; import TrailExit;"
    /// In place: after the file's first import, on its line, or as the file's last line.
    static let importAfterImport = wrap("; import enum Trail.Trail; import TrailExit")
    static let importAtEnd = wrap("import enum Trail.Trail; import TrailExit")
    /// In place, at the end of a file with no final newline: the line break is the marker's, so strip takes it too.
    static let importOnNewLine = wrap("\nimport enum Trail.Trail; import TrailExit")

    /// Entry and exit for a body with statements. The trailing `;` lets user code follow on the same line.
    /// Synchronous calls pass nothing to their exit (the runtime keeps a per-thread stack); async calls, which
    /// can end on another thread, pass a span.
    /// `mayBeEmpty`: the body may be empty once `#if` is resolved, and a `defer` that ends a scope draws a
    /// compiler warning (an error with warnings-as-errors), so an empty `do {}` follows it.
    static func entryCode(site: String, async: Bool, mayBeEmpty: Bool = false) -> String {
        let tail = mayBeEmpty ? " do {};" : ""
        return async
            ? "let __trail = Trail.enterAsync(\(literal(site))); defer { Trail.exit(__trail) };" + tail
            : "Trail.enter(\(literal(site))); defer { Trail.exit() };" + tail
    }

    /// The exit of a body whose entry is written apart (`ValueCapture.entry`), as `entryCode` ends.
    static func exitCode(async: Bool, mayBeEmpty: Bool) -> String {
        (async ? " defer { Trail.exit(__trail) };" : " defer { Trail.exit() };") + (mayBeEmpty ? " do {};" : "")
    }

    /// Entry for a synchronous body that is one value: its exit follows the value (`foldedExitCode`).
    static func foldedEntryCode(site: String) -> String { "Trail.enter(\(literal(site)));" }

    /// What follows a folded body's value, which an explicit `return` precedes: the exit is recorded once the
    /// value is made, with no `defer`, which unoptimized code calls as a function of its own. An operator below
    /// assignment, so the return expression still starts at the value (`TrailExit`); its right operand names the
    /// body's result type where it can (`ExitType`).
    static func foldedExitCode(resultType: String?) -> String {
        resultType.map { " ~>| Trail.TypedExit<\($0)>()" } ?? " ~>| Trail.Exit()"
    }

    /// An empty body: a `defer` at the end of a scope draws a compiler warning, so call both at once.
    static func emptyBodyCode(site: String, async: Bool) -> String {
        async ? "Trail.exit(Trail.enterAsync(\(literal(site))));" : "Trail.enter(\(literal(site))); Trail.exit();"
    }

    /// Makes an implicit single-expression return explicit once statements precede it.
    static let explicitReturn = wrap("return ")

    /// A Swift string literal for `text`: names can hold `"` or `\` only through raw identifiers.
    public static func literal(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
