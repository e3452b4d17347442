/// A small, table-driven argument parser: each verb lists its options, and `--help` is generated from them.
public struct OptionSpec: Sendable {
    public var names: [String]
    /// The value's placeholder in help, or nil for a flag.
    public var value: String?
    public var help: String
    public var repeatable = false

    public static func flag(_ names: String..., help: String) -> OptionSpec {
        OptionSpec(names: names, value: nil, help: help)
    }

    public static func value(_ names: String..., placeholder: String, help: String, repeatable: Bool = false)
        -> OptionSpec
    {
        OptionSpec(names: names, value: placeholder, help: help, repeatable: repeatable)
    }
}
