/// Why the logger could not be set up (a folder it cannot make or use, a file it cannot open): `bootstrap` throws it.
public struct LogSetupError: Error, CustomStringConvertible {
    public var description: String
}
