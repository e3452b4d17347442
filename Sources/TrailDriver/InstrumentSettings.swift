import TrailRewriter

/// What `trail instrument` was asked for, for every file; `instrument` forms each file's rewriter options from
/// it, in this one place.
public struct InstrumentSettings: Sendable {
    public var closures = false
    public var inlinable = false
    /// Never functions and result builders declared outside the file being rewritten: named with `--never` and
    /// `--builder`, listed by `trail scan`, or found in the other files of a batch. They apply to every file.
    public var declared: [Declarations] = []

    public init(closures: Bool = false, inlinable: Bool = false, declared: [Declarations] = []) {
        self.closures = closures
        self.inlinable = inlinable
        self.declared = declared
    }

    /// Instruments one file of `module`, which `SourceFiles` decided. The Trail runtime is skipped.
    public func instrument(_ source: [UInt8], path: String, module: String) throws(SourceError) -> RewriteOutcome {
        if SourceFiles.isRuntime(module) { return .skipped("the Trail runtime is never instrumented") }
        let text = try SourceText(source, path: path)
        let options = InstrumentOptions(module: module, declarations: Declarations(merging: declared + [text.declarations]),
                                        closures: closures, inlinable: inlinable)
        return try Rewriter.instrument(text, options: options)
    }
}
