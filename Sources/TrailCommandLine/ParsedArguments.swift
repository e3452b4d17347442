public struct ParsedArguments {
    public var values: [String: [String]] = [:]
    public var flags: Set<String> = []
    public var positionals: [String] = []

    /// Options are looked up by their long name.
    public func has(_ name: String) -> Bool { flags.contains(name) }
    public func value(_ name: String) -> String? { values[name]?.last }

    /// `--output`'s file: nil when none is given or it is `-`, standard output, as other tools take it.
    public func outputFile() -> String? { value("output").flatMap { $0 == "-" ? nil : $0 } }
    public func all(_ name: String) -> [String] { values[name] ?? [] }
}
