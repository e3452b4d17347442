import Foundation
import TrailCommandLine
import TrailFormat
import TrailSymbolizer

/// A log file, or a folder with no trace in it, is a crash report's input; a folder of traces (`trail-traces`,
/// or a log folder the traces went to) is read as traces unless `--crash` says otherwise.
func isCrashInput(_ path: String) -> Bool {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return false }
    if isDirectory.boolValue {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return !names.contains { $0.hasSuffix(".trace") }
    }
    // Only a regular file (or a link to one) is opened to look: opening a FIFO would wait for a writer.
    var info = stat()
    guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, let handle = FileHandle(forReadingAtPath: path)
    else { return false }
    defer { try? handle.close() }
    // A log, a marker or a console block file by its name; else text that is not a trace. Binary data that is
    // not a trace is read as a trace, which says "not a trace".
    if [".log", CrashMarker.fileExtension, CrashMarker.blockFileExtension].contains(where: path.hasSuffix) {
        return true
    }
    guard let head = try? handle.read(upToCount: 4096), !TraceLayout.hasMagic(head) else { return false }
    // Text: no NUL, and valid UTF-8 (but for a character the 4096-byte cut may split).
    return !head.contains(0) && String(validating: Array(head.prefix(max(0, head.count - 3))), as: UTF8.self) != nil
}

/// `trail report --crash`: the last crash, as Markdown or JSON.
func crashReport(_ arguments: ParsedArguments) throws -> Int32 {
    guard arguments.positionals.count <= 1 else { throw UsageError(description: "give one log folder or log file") }
    let input = arguments.positionals.first ?? FileManager.default.currentDirectoryPath
    do {
        let (log, offset) = try CrashReport.locate(input)
        let report = try CrashReport(
            log: log, offset: offset, symbolizer: CrashSymbolizer(debugDirectories: arguments.all("debug-dir")))
        let sanitized = !arguments.has("no-sanitize")
        let text = arguments.has("json") ? report.json(sanitized: sanitized) : report.markdown(sanitized: sanitized)
        if let output = arguments.outputFile() {
            // A report names paths and log lines: a new one is the user's alone (0600), whatever the umask.
            do {
                try AtomicFile.replace(output, with: Array(text.utf8), mode: 0o600)
            } catch {
                throw VerbFailure("error: \(error)")
            }
            printError("trail report: wrote \(output)")
        } else {
            printOut(text)
        }
        return 0
    } catch let error as SymbolizerError {
        throw VerbFailure("error: \(error.description)")
    }
}
