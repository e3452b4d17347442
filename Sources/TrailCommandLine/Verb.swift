public struct Verb: Sendable {
    public var name: String
    public var summary: String
    public var usage: String
    public var details: String
    public var options: [OptionSpec]
    /// Groups of options (long names without dashes) of which at most one may be given.
    public var conflicts: [[String]]
    /// Options that mean something only beside one of the others named: otherwise they would be ignored.
    public var needs: [String: [String]]
    public var run: @Sendable (ParsedArguments) throws -> Int32

    public init(
        name: String, summary: String, usage: String, details: String = "", options: [OptionSpec],
        conflicts: [[String]] = [], needs: [String: [String]] = [:],
        run: @escaping @Sendable (ParsedArguments) throws -> Int32
    ) {
        self.name = name
        self.summary = summary
        self.usage = usage
        self.details = details
        self.options = options
        self.conflicts = conflicts
        self.needs = needs
        self.run = run
    }

    public var help: String {
        var text = "\(summary)\n\nUsage: trail \(name) \(usage)\n"
        if !details.isEmpty { text += "\n\(details)\n" }
        if !options.isEmpty { text += "\nOptions:\n" }
        let all = options + [.flag("-h", "--help", help: "Show this help.")]
        let labels = all.map { option in option.names.joined(separator: ", ") + (option.value.map { " \($0)" } ?? "") }
        let width = min(28, labels.map(\.count).max() ?? 0)
        for (option, label) in zip(all, labels) {
            let padded =
                label.count >= width ? label + "  " : label + String(repeating: " ", count: width - label.count + 2)
            text += "  \(padded)\(option.help)\n"
        }
        return text
    }
}

extension Verb {
    /// Parses `arguments` (after the verb). `--help` is reported as the flag `help`.
    public func parse(_ arguments: [String]) throws -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        func key(_ spec: OptionSpec) -> String {
            let long = spec.names.first { $0.hasPrefix("--") } ?? spec.names[0]
            return String(long.drop { $0 == "-" })
        }
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                parsed.positionals += arguments[index...]
                break
            }
            if argument == "-h" || argument == "--help" {
                parsed.flags.insert("help")
                continue
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                parsed.positionals.append(argument)
                continue
            }
            // `--name=value` and `--name value` are both accepted.
            var name = argument
            var inline: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            guard let spec = options.first(where: { $0.names.contains(name) }) else {
                throw UsageError(
                    description: "unknown option '\(name)' for 'trail \(self.name)' (see 'trail \(self.name) --help')")
            }
            let key = key(spec)
            guard spec.value != nil else {
                if inline != nil { throw UsageError(description: "option '\(name)' takes no value") }
                parsed.flags.insert(key)
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else if index < arguments.count {
                value = arguments[index]
                index += 1
                // `--obj --json ./App`: the value was forgotten, and the next option would be swallowed.
                if value == "-h" || value == "--help" || options.contains(where: { $0.names.contains(value) }) {
                    throw UsageError(
                        description: "option '\(name)' needs a value (\(spec.value!)), not the option '\(value)'; "
                            + "write \(name)=\(value) for a value that is spelled like one")
                }
            } else {
                throw UsageError(description: "option '\(name)' needs a value (\(spec.value!))")
            }
            if !spec.repeatable, parsed.values[key] != nil {
                throw UsageError(description: "option '\(name)' given twice")
            }
            parsed.values[key, default: []].append(value)
        }
        if parsed.has("help") { return parsed }
        let given = { (key: String) in parsed.flags.contains(key) || parsed.values[key] != nil }
        for group in conflicts {
            let present = group.filter(given)
            if present.count > 1 {
                throw UsageError(
                    description: present.map { "--" + $0 }.joined(separator: " and ") + " cannot be given together")
            }
        }
        for (option, partners) in needs.sorted(by: { $0.key < $1.key })
        where given(option) && !partners.contains(where: given) {
            throw UsageError(
                description: "--\(option) means something only with "
                    + partners.map { "--" + $0 }.joined(separator: " or ")
                    + "; without it, it would be ignored")
        }
        return parsed
    }
}
