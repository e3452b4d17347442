/// One frame of a symbolized address: a function and where in it. An address inside inlined code gives
/// several, innermost first; all but the last are `inlined`.
public struct SymbolizedFrame: Sendable, Equatable {
    /// The linkage (mangled) name, as in the symbol table or DWARF; empty when unknown.
    public var mangledName: String
    /// Demangled in full (Swift and C++), computed when asked for: a crash report shows the simplified form;
    /// the mangled name when it is not mangled, `??` when unknown.
    public var function: String { mangledName.isEmpty ? "??" : Demangler.shared.demangle(mangledName) }
    public var file: String?
    public var line: Int
    public var column: Int
    public var inlined: Bool
    /// Bytes from the function's start, for the outermost frame.
    public var offset: UInt64?
}

public struct SymbolizerError: Error, CustomStringConvertible, Sendable {
    public var description: String
}
