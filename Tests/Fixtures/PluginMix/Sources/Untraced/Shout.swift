// Opted into the plugin but given no `sources:`: the build compiles this file itself, and nothing traces it.
public func shout(_ text: String) -> String { text.uppercased() }

/// An alias of a function type, which a traced target that imports this one takes as a parameter.
public typealias Shouting = (String) -> String
