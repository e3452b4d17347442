// Opted into the plugin but given no `sources:`: the build compiles this file itself, and nothing traces it.
public func shout(_ text: String) -> String { text.uppercased() }
