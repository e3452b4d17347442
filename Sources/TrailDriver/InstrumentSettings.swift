import Foundation
import TrailRewriter

/// What `trail instrument` was asked for, for every file; `instrument` forms each file's rewriter options from
/// it, in this one place.
public struct InstrumentSettings: Sendable {
    public var closures = false
    public var inlinable = false
    /// Record arguments and results too (`InstrumentOptions.values`).
    public var values = false
    /// Never functions and result builders declared outside the file being rewritten: named with `--never` and
    /// `--builder`, listed by `trail scan`, or found in the other files of a batch. They apply to every file.
    public var declared: [Declarations] = []
    /// Experimental syntax to parse, by the compiler's feature names.
    public var experimentalFeatures: [String] = []
    /// `declared` already holds what every file of the batch's modules declares (`trail test` keeps it between
    /// runs and rewrites only changed files): the batch does not scan its files again.
    public var declarationsComplete = false

    public init(
        closures: Bool = false, inlinable: Bool = false, declared: [Declarations] = [],
        experimentalFeatures: [String] = []
    ) {
        self.closures = closures
        self.inlinable = inlinable
        self.declared = declared
        self.experimentalFeatures = experimentalFeatures
    }

    /// The variable that names experimental features (comma-separated): a build plugin cannot see a target's
    /// `swiftSettings`, but the environment of `swift build` reaches its commands.
    public static let featuresVariable = "TRAIL_EXPERIMENTAL_FEATURES"

    /// The features named in `environment`, and those of `names` the parser does not know.
    public static func features(named names: [String], environment: [String: String]) -> (
        features: [String], unknown: [String]
    ) {
        let listed = (environment[featuresVariable] ?? "").split(separator: ",").map {
            String($0).trimmingCharacters(in: .whitespaces)
        }
        let all = names + listed.filter { !$0.isEmpty }
        return (all, all.filter { !Rewriter.isExperimentalFeature($0) })
    }

    /// Instruments one file of `module`, which `SourceFiles` decided. The Trail runtime is skipped.
    /// `lineDirectiveFile`: the file a build copy's `#sourceLocation` names, to keep columns (see `InstrumentOptions`).
    public func instrument(_ source: [UInt8], path: String, module: String, lineDirectiveFile: String? = nil)
        throws(SourceError) -> RewriteOutcome
    {
        if SourceFiles.isRuntime(module) { return .skipped("the Trail runtime is never instrumented") }
        let text = try SourceText(source, path: path, experimentalFeatures: experimentalFeatures)
        var options = InstrumentOptions(
            module: module, declarations: Declarations(merging: declared + [text.declarations]),
            closures: closures, inlinable: inlinable, experimentalFeatures: experimentalFeatures)
        options.lineDirectiveFile = lineDirectiveFile
        options.values = values
        return try Rewriter.instrument(text, options: options)
    }
}
