import Testing
import TrailCommandLine

/// The argument tables' parser, case by case: each line is what a user typed after the verb, and what the verb
/// gets or the usage error it stops with.
@Suite struct ArgumentsTests {
    static let verb = Verb(
        name: "demo", summary: "A verb for the tests.", usage: "[options] FILE...",
        options: [
            .value("-o", "--output", placeholder: "FILE", help: "Where to write."),
            .value("--filter", placeholder: "PATTERN", help: "Functions to keep.", repeatable: true),
            .flag("--json", help: "JSON."),
            .flag("--text", help: "Text."),
            .flag("--follow", help: "Keep reading."),
            .value("--service", placeholder: "NAME", help: "The service's name."),
        ],
        conflicts: [["json", "text"]], needs: ["service": ["follow"]], run: { _ in 0 })

    static func parse(_ arguments: String) throws -> ParsedArguments {
        try verb.parse(arguments.split(separator: " ").map(String.init))
    }

    static let accepted: [(arguments: String, values: [String: [String]], flags: Set<String>, positionals: [String])] =
        [
            ("a b", [:], [], ["a", "b"]),
            ("-o out a", ["output": ["out"]], [], ["a"]),
            ("--output=out a", ["output": ["out"]], [], ["a"]),
            ("--output=--json a", ["output": ["--json"]], [], ["a"]),
            ("--json a --filter x --filter y", ["filter": ["x", "y"]], ["json"], ["a"]),
            ("-", [:], [], ["-"]),
            ("a -- --json -o b", [:], [], ["a", "--json", "-o", "b"]),
            ("--json -- --", [:], ["json"], ["--"]),
            ("--follow --service api", ["service": ["api"]], ["follow"], []),
        ]

    @Test(arguments: accepted.indices)
    func argumentsAreSortedIntoValuesFlagsAndPositionals(_ index: Int) throws {
        let line = Self.accepted[index]
        let parsed = try Self.parse(line.arguments)
        #expect(parsed.values == line.values, "\(line.arguments)")
        #expect(parsed.flags == line.flags, "\(line.arguments)")
        #expect(parsed.positionals == line.positionals, "\(line.arguments)")
    }

    static let refused: [(arguments: String, error: String)] = [
        ("--bogus a", "unknown option '--bogus' for 'trail demo' (see 'trail demo --help')"),
        ("--bogus=1", "unknown option '--bogus' for 'trail demo' (see 'trail demo --help')"),
        ("-x", "unknown option '-x' for 'trail demo' (see 'trail demo --help')"),
        ("a -o", "option '-o' needs a value (FILE)"),
        (
            "--output --json a",
            "option '--output' needs a value (FILE), not the option '--json'; "
                + "write --output=--json for a value that is spelled like one"
        ),
        (
            "-o --help",
            "option '-o' needs a value (FILE), not the option '--help'; write -o=--help for a value that is spelled like one"
        ),
        ("--json=yes", "option '--json' takes no value"),
        ("-o a --output b", "option '--output' given twice"),
        ("--json --text", "--json and --text cannot be given together"),
        ("--service api", "--service means something only with --follow; without it, it would be ignored"),
    ]

    @Test(arguments: refused.indices)
    func aMistakeIsAUsageErrorThatSaysWhat(_ index: Int) {
        let line = Self.refused[index]
        let error = #expect(throws: UsageError.self, "\(line.arguments)") { try Self.parse(line.arguments) }
        #expect(error?.description == line.error, "\(line.arguments)")
    }

    /// `--help` and `-h` win over everything after them that would be a mistake, but not over an unknown option
    /// before them, and not after `--`.
    @Test func helpIsAFlagThatStopsTheChecks() throws {
        #expect(try Self.parse("--help").flags == ["help"])
        #expect(try Self.parse("--json --text -h").flags == ["json", "text", "help"])
        #expect(try Self.parse("--service api --help").has("help"))
        #expect(throws: UsageError.self) { try Self.parse("--bogus --help") }
        #expect(try Self.parse("-- --help").positionals == ["--help"])
        #expect(!(try Self.parse("-- --help").has("help")))
    }

    @Test func lastValueAndAllValuesAreByLongName() throws {
        let parsed = try Self.parse("--filter x -o out --filter y")
        #expect(parsed.value("output") == "out" && parsed.value("filter") == "y")
        #expect(parsed.all("filter") == ["x", "y"] && parsed.all("json") == [])
        #expect(parsed.value("-o") == nil, "short names are not keys")
    }

    /// The generated help: usage, details, and every option with its placeholder in one aligned column.
    @Test func helpIsGeneratedFromTheTable() {
        var verb = Self.verb
        verb.details = "Reads FILEs."
        #expect(
            verb.help == """
                A verb for the tests.

                Usage: trail demo [options] FILE...

                Reads FILEs.

                Options:
                  -o, --output FILE  Where to write.
                  --filter PATTERN   Functions to keep.
                  --json             JSON.
                  --text             Text.
                  --follow           Keep reading.
                  --service NAME     The service's name.
                  -h, --help         Show this help.

                """)
    }
}
