/// Every environment variable trail and a traced program read, defined once: `trail --help` prints it, `trail
/// help settings` prints it whole, and Docs/settings.md is its Markdown form (a test checks they agree).
public enum SettingsTable {
    public struct Setting: Sendable {
        public var name: String
        /// What it takes, and the default.
        public var values: String
        public var effect: String
    }

    public struct Group: Sendable {
        public var title: String
        public var settings: [Setting]
    }

    public static let groups: [Group] = [
        Group(
            title: "Tracing, at run time",
            settings: [
                Setting(
                    name: "TRAIL_TRACE", values: "off (default), log or 1, record",
                    effect:
                        "off: each hook is a load and a branch; log: a line per entry and exit, with its duration; record: a binary trace"
                ),
                Setting(
                    name: "TRAIL_TRACE_FILE", values: "a pattern (default %e-%t-%p.trace)",
                    effect:
                        "where traces go: %p pid, %e executable, %h host, %t start time, %%; in the log folder after Trail.bootstrap, else ./trail-traces"
                ),
                Setting(
                    name: "TRAIL_TRACE_MAX_SIZE",
                    values: "a size of 256K or more, or 0 for none (default 1G, at most a tenth of the free space)",
                    effect: "the most a trace, or log mode's line file, takes"),
                Setting(
                    name: "TRAIL_TRACE_KEEP", values: "last (default) or first",
                    effect: "what a full trace keeps: the newest records (a flight recorder) or the first"),
                Setting(
                    name: "TRAIL_TRACE_KEEP_FILES", values: "a count (default 1000)",
                    effect: "at start, older traces in the trace's folder beyond this many are deleted, oldest first"),
                Setting(
                    name: "TRAIL_TRACE_KEEP_TOTAL", values: "a size (default 4G, at most a quarter of the free space)",
                    effect: "at start, older traces beyond this total are deleted, oldest first"),
                Setting(
                    name: "TRAIL_TRACE_BUFFER", values: "a size (default 32M)",
                    effect: "the ring per thread, touched only as used"),
                Setting(
                    name: "TRAIL_TRACE_FILTER", values: "globs, comma-separated",
                    effect: "trace only these functions and what they call"),
                Setting(
                    name: "TRAIL_TRACE_EXCLUDE", values: "globs, comma-separated",
                    effect: "do not trace these functions (what they call still is)"),
                Setting(
                    name: "TRAIL_TRACE_DEPTH", values: "a count (default 0)",
                    effect: "trace only calls less deep than this"),
                Setting(
                    name: "TRAIL_VALUES_FILTER", values: "globs, comma-separated (default: all)",
                    effect: "in a build with values (--values), the functions whose arguments and results are recorded"),
                Setting(
                    name: "TRAIL_VALUES_REDACT", values: "words, comma-separated",
                    effect:
                        "an argument whose label or name holds one is recorded as <redacted>, besides the build's list"),
                Setting(
                    name: "TRAIL_VALUES_DESCRIBE", values: "types as written, comma-separated, * for any text",
                    effect:
                        "arguments and results of these types are recorded by String(describing:), which runs their code"
                ),
                Setting(
                    name: "TRAIL_VALUES_STRING_MAX", values: "0 to 434 (default 64)",
                    effect: "the bytes of a string argument or result recorded"),
            ]),
        Group(
            title: "Logging, after Trail.bootstrap",
            settings: [
                Setting(
                    name: "TRAIL_LOG",
                    values: "automatic (default: console on a terminal, else file), console, file or tee",
                    effect: "where log lines and standard error go"),
                Setting(
                    name: "TRAIL_LOG_DIR", values: "a folder",
                    effect: "the log folder (default: the configuration's, else a private folder of the user's)"),
                Setting(
                    name: "TRAIL_LOG_FORMAT", values: "text (default) or json",
                    effect: "one text line, or one JSON object, per log line"),
                Setting(
                    name: "TRAIL_LOG_LEVEL", values: "trace, debug, info (default), notice, warning, error, critical",
                    effect: "the lowest level written"),
                Setting(
                    name: "TRAIL_LOG_MAX_SIZE", values: "a size (default 10M, at least 4K)",
                    effect: "a log file rotates at this size"),
                Setting(
                    name: "TRAIL_LOG_MAX_AGE", values: "a duration: 90, 90s, 15m, 1h, 1d (default none)",
                    effect: "a log file rotates at this age"),
                Setting(name: "TRAIL_LOG_MAX_FILES", values: "a count (default 5)", effect: "rotated files kept"),
                Setting(
                    name: "TRAIL_LOG_MAX_TOTAL", values: "a size (default 100M)",
                    effect: "what the log folder's files may take together"),
                Setting(
                    name: "TRAIL_LOG_FLUSH_MS", values: "1 to 60000 (default 50)",
                    effect: "buffered lines are written at least this often"),
                Setting(
                    name: "TRAIL_LOG_DURABLE", values: "a switch (default 0)",
                    effect: "each line is written at once, at the cost of a system call"),
                Setting(
                    name: "TRAIL_APP_VERSION", values: "text",
                    effect: "the version in crash blocks, reports and OTLP's service.version"),
            ]),
        Group(
            title: "Crashes",
            settings: [
                Setting(name: "TRAIL_CRASH", values: "a switch (default 1)", effect: "0: no crash handler"),
                Setting(
                    name: "TRAIL_CRASH_BREADCRUMBS", values: "0 to 1024 (default 32)",
                    effect: "the last traced calls a crash block lists"),
            ]),
        Group(
            title: "Building",
            settings: [
                Setting(
                    name: "TRAIL", values: "1",
                    effect: "in a manifest set up by 'trail setup': build with the plugin, traced"),
                Setting(name: "TRAIL_RELEASE", values: "1", effect: "the plugin traces release builds too"),
                Setting(
                    name: "TRAIL_VALUES", values: "1",
                    effect: "the plugin's copies record arguments and results too (trail instrument --values)"),
                Setting(
                    name: "TRAIL_EXPERIMENTAL_FEATURES", values: "names, comma-separated",
                    effect: "experimental syntax to parse, by the compiler's feature names"),
                Setting(
                    name: "TRAIL_PACKAGE", values: "a folder",
                    effect: "the swift-trail package that 'trail test' and 'trail run' add (default: found)"),
            ]),
        Group(
            title: "Resource constants (the TrailResources plugin)",
            settings: [
                Setting(
                    name: "TRAIL_RESOURCES_XML_EXTENSIONS",
                    values: "extensions, comma-separated (default storyboard,xib,xml)",
                    effect: "the files whose identifiers become constants"),
                Setting(
                    name: "TRAIL_RESOURCES_ATTRIBUTES", values: "names, comma-separated",
                    effect: "more XML attributes whose values become constants"),
            ]),
        Group(
            title: "Viewers",
            settings: [
                Setting(
                    name: "TRAIL_TUI_SLICE_DELAY", values: "seconds (default 0)",
                    effect: "for tests only: 'trail tui' waits this long after each block it reads")
            ]),
    ]

    /// The rules every value follows.
    public static let rules = """
        Sizes are 65536, 64K, 10M or 1G; for every limit (sizes, counts, depth), 0 means no limit. Switches take
        1/0, true/false, yes/no or on/off. A value that does not parse or is out of range is reported in one line on
        standard error, naming the variable, the value and what is used instead.
        """

    /// For `trail --help`: a line per setting, names aligned.
    public static func text(indent: String = "  ") -> String {
        let width = groups.flatMap(\.settings).map(\.name.count).max() ?? 0
        var out = ""
        for group in groups {
            out += "\(indent)\(group.title):\n"
            for setting in group.settings {
                out += "\(indent)  \(setting.name.padded(to: width + 2))\(setting.values): \(setting.effect)\n"
            }
        }
        return out + rules.split(separator: "\n").map { indent + $0 }.joined(separator: "\n") + "\n"
    }

    /// Docs/settings.md.
    public static func markdown() -> String {
        var out =
            "# Settings\n\nGenerated from `SettingsTable` (Sources/TrailCommandLine), which `trail --help` prints too.\n\n"
        for group in groups {
            out += "## \(group.title)\n\n| variable | values | effect |\n|---|---|---|\n"
            for setting in group.settings {
                out += "| `\(setting.name)` | \(setting.values) | \(setting.effect) |\n"
            }
            out += "\n"
        }
        return out + rules.split(separator: "\n").joined(separator: " ") + "\n"
    }
}
