import Untraced

/// A parameter of another module's alias of a function type: a non-escaping closure, which a build with values
/// must not pass to a recorder (the plugin scans the modules App imports).
func relay(_ transform: Shouting, _ text: String) -> String { transform(text) }
