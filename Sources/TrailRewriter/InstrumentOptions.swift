import SwiftDiagnostics
import SwiftParserDiagnostics
import SwiftSyntax
import TrailFormat

/// What `instrument` needs to know beyond the source text. The caller forms it whole: the rewriter adds nothing.
public struct InstrumentOptions: Sendable {
    /// The first component of every name: `Module.Type.method()`.
    public var module: String
    /// Functions known to return `Never`, so a lone call to one is not turned into `return call()`, and
    /// result-builder attributes to skip besides `@…Builder`: those of the file itself and of the others.
    public var declarations: Declarations
    /// Also trace closures. Off by default: a closure's type is inferred from its body, and result-builder
    /// closures cannot be recognized at the call site.
    public var closures = false
    /// Also instrument `@inlinable`, `@_alwaysEmitIntoClient` and `@backDeployed` bodies. Legal only where
    /// `import Trail` is public (not with `InternalImportsByDefault`), and clients then trace those calls.
    public var inlinable = false
    /// Experimental syntax the file's target enables, by the compiler's names (`BorrowAndMutateAccessors`).
    /// Without it, features that change no ordinary code are on, and a file that does not parse is parsed again
    /// with the others.
    public var experimentalFeatures: [String] = []
    /// For a build copy that starts with `#sourceLocation(file: lineDirectiveFile, line: 1)`: where code follows
    /// a body's brace on its line, the line is broken after the inserted text and `#sourceLocation` puts the
    /// rest back at its line and column. Without it (in place) no line moves, and columns on such lines shift.
    public var lineDirectiveFile: String?
    /// Also record each synchronous call's arguments and a one-value body's result (`ValueCapture`). Off, the
    /// output is what it was before values existed, byte for byte.
    public var values = false

    public init(
        module: String, declarations: Declarations = Declarations(), closures: Bool = false, inlinable: Bool = false,
        experimentalFeatures: [String] = []
    ) {
        self.module = module
        self.declarations = declarations
        self.closures = closures
        self.inlinable = inlinable
        self.experimentalFeatures = experimentalFeatures
    }
}
