import Foundation
import TrailRewriter

#if canImport(Glibc)
import Glibc
#endif

/// Rewrites many files on all cores. Results are reported in input order, whatever order they finish in.
public enum Batch {
    public static func run(
        _ files: [SourceFile], _ operation: BatchOperation, _ options: BatchOptions,
        standardOutput: (String) -> Void, standardError: @escaping @Sendable (String) -> Void
    ) -> BatchReport {
        let results = ResultSlots<FileResult>(count: files.count)
        let progress = options.progress ? Progress(total: files.count, write: standardError) : nil

        // Never-returning functions and result builders declared anywhere in the set apply to every file.
        var operation = operation
        if case .instrument(var settings) = operation, files.count > 1, !settings.declarationsComplete {
            settings.declared.append(Declarations.scan(files.map(\.path), jobs: options.jobs))
            operation = .instrument(settings)
        }

        let scanned = operation
        let order = largestFirst(files.map(\.path))
        parallelForEach(files.count, jobs: options.jobs) { position in
            let index = order[position]
            results[index] = process(files[index], scanned, options)
            progress?.advance(files[index].relativePath)
        }
        progress?.finish()

        var report = BatchReport()
        for index in 0 ..< files.count {
            guard let result = results[index] else { continue }
            switch result.outcome {
            case .success(.changed(_, let bodies)):
                report.changed += 1
                report.bodies += bodies
            case .success(.unchanged): report.unchanged += 1
            case .success(.skipped): report.skipped += 1
            case .failure(let error): report.errors.append(error)
            }
            if let text = result.output { standardOutput(text) }
            if let note = result.note { standardError(note + "\n") }
        }
        for error in report.errors { standardError(error.description + "\n") }
        return report
    }

    private struct FileResult: Sendable {
        var outcome: Result<RewriteOutcome, SourceError>
        /// Text for standard output: a diff, or the rewritten file.
        var output: String?
        /// A line for standard error: a build copy left as written.
        var note: String?
    }

    private static func process(_ file: SourceFile, _ operation: BatchOperation, _ options: BatchOptions) -> FileResult
    {
        do throws(SourceError) {
            let original = try FileIO.read(file.path)
            let outcome: RewriteOutcome
            switch operation {
            case .instrument(let settings):
                outcome = try settings.instrument(
                    original, path: file.path, module: file.module,
                    lineDirectiveFile: options.lineDirective
                        ? directiveFile(for: file, destination: options.destination) : nil)
            case .strip:
                outcome = try Rewriter.strip(original, path: file.path)
            }
            var result = original
            if case .changed(let bytes, _) = outcome { result = bytes }
            if options.lineDirective {
                result = buildCopy(
                    naming: directiveFile(for: file, destination: options.destination), original: original,
                    result: result, debugOnly: options.debugOnly)
            }

            switch options.destination {
            case .inPlace:
                if case .changed = outcome { try FileIO.writeAtomically(result, to: file.path) }
            case .directory(let directory):
                let target = directory + "/" + file.relativePath
                try FileIO.makeParents(of: target)
                try FileIO.writeIfChanged(result, to: target)
            case .file(let target):
                try FileIO.makeParents(of: target)
                try FileIO.writeIfChanged(result, to: target)
            case .dryRun:
                let diff = UnifiedDiff.make(old: original, new: result, path: file.path)
                return FileResult(outcome: .success(outcome), output: diff.isEmpty ? nil : diff)
            case .standardOutput:
                return FileResult(outcome: .success(outcome), output: String(decoding: result, as: UTF8.self))
            }
            return FileResult(outcome: .success(outcome), output: nil)
        } catch {
            // A build copy of a file that cannot be rewritten is the file itself, and the build goes on: the
            // compiler then parses it with the target's own settings (a syntax the parser here does not know),
            // or reports the problem at the original file and line, as it would without tracing.
            if options.lineDirective, let target = copyTarget(file, options.destination),
                let original = try? FileIO.read(file.path),
                (try? FileIO.makeParents(of: target)) != nil,
                (try? FileIO.writeAtomically(
                    buildCopy(
                        naming: directiveFile(for: file, destination: options.destination),
                        original: original, result: original, debugOnly: false), to: target)) != nil
            {
                let note =
                    "\(error.path):\(error.line):\(error.column): note: compiled without tracing: \(error.message)"
                return FileResult(outcome: .success(.skipped(error.description)), output: nil, note: note)
            }
            return FileResult(outcome: .failure(error), output: nil)
        }
    }

    /// Where a build copy goes, for destinations that write one per file.
    private static func copyTarget(_ file: SourceFile, _ destination: BatchOptions.Destination) -> String? {
        switch destination {
        case .file(let target): return target
        case .directory(let directory): return directory + "/" + file.relativePath
        default: return nil
        }
    }

    /// The file that the `#sourceLocation` directives of `file`'s build copy name (absolute): the input, so that
    /// diagnostics, `#fileID` and debug info name the user's file. But a copy written as `main.swift` names
    /// itself: it keeps that name to hold top-level code, and a directive naming another `main.swift` gives the
    /// module two paths with the `#fileID` `Module/main.swift`, which the compiler warns about (a warning no
    /// flag silences). Naming itself, the copy keeps its `#fileID`, lines and columns; only `#filePath`, debug
    /// info and diagnostics name the copy. The name is the output path as given, which must be the path the
    /// compiler is given (the build plugin declares the same path as the command's output).
    public static func directiveFile(for file: SourceFile, destination: BatchOptions.Destination) -> String {
        let named = copyTarget(file, destination).flatMap { isEntryPoint($0) ? $0 : nil } ?? file.path
        return named.hasPrefix("/") ? named : FileManager.default.currentDirectoryPath + "/" + named
    }

    /// The compiler takes a file named `main.swift` as the module's top-level code, whatever its folder.
    static func isEntryPoint(_ path: String) -> Bool {
        path == "main.swift" || path.hasSuffix("/main.swift")
    }

    /// A copy compiled in place of the input: its `#sourceLocation` names `file` (see `directiveFile`) and
    /// restores the input's lines. A `#!` line becomes blank, since it is only legal as a file's first line.
    static func buildCopy(naming file: String, original: [UInt8], result: [UInt8], debugOnly: Bool) -> [UInt8] {
        let directive = Array("#sourceLocation(file: \(Marker.literal(file)), line: 1)\n".utf8)
        func body(_ text: [UInt8]) -> [UInt8] {
            var text = text
            if text.starts(with: [UInt8(ascii: "#"), UInt8(ascii: "!")]) {
                text.removeSubrange(0 ..< (text.firstIndex(of: UInt8(ascii: "\n")) ?? text.count))
            }
            if let last = text.last, last != UInt8(ascii: "\n") { text.append(UInt8(ascii: "\n")) }
            return directive + text
        }
        guard debugOnly else { return body(result) }
        let reset = Array("#sourceLocation()\n".utf8)
        return Array("#if DEBUG\n".utf8) + body(result) + reset + Array("#else\n".utf8) + body(original) + reset
            + Array("#endif\n".utf8)
    }
}
