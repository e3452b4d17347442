import Foundation
import TrailCommandLine
import TrailTrace

let traceArgument = "[TRACE|FOLDER]..."
let traceDetails = """
    Give trace files, or folders of them (every *.trace inside), to see several processes together. With none,
    the newest trace in ./trail-traces (where TRAIL_TRACE=record writes by default) or here.
    """

/// The traces named on the command line (files, or folders of `*.trace`), opened and ordered by start time. What
/// cannot be read (missing, empty, cut inside its header, not a trace) is skipped with a note naming it and why,
/// whether it was named or found in a folder; only when nothing is left is it an error.
func openTraces(_ arguments: ParsedArguments) throws -> [TraceFile] {
    var files: [TraceFile] = []
    for given in arguments.positionals {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: given, isDirectory: &isFolder) else {
            printError("trail: skipping \(given): no such trace file or folder")
            continue
        }
        guard isFolder.boolValue else {
            if let file = openOrSkip(given) { files.append(file) }
            continue
        }
        let inFolder = traces(in: given)
        if inFolder.isEmpty { printError("trail: skipping \(given): no *.trace files in this folder") }
        files += inFolder.compactMap(openOrSkip)
    }
    if arguments.positionals.isEmpty {
        files = [try newestTrace()]
    }
    guard !files.isEmpty else { throw VerbFailure.input("no trace could be read (see above)") }
    let sorted = files.sorted { ($0.startWallNanoseconds, $0.pid) < ($1.startWallNanoseconds, $1.pid) }
    reportGaps(sorted, before: true)
    return sorted
}

/// The trace, or nil after a note on stderr saying why it is skipped.
private func openOrSkip(_ path: String) -> TraceFile? {
    do {
        return try TraceFile(path: path)
    } catch let error as TraceFile.FormatError {
        printError("trail: skipping \(error.description)")
    } catch {
        printError("trail: skipping \(path): \(error)")
    }
    return nil
}

/// With no trace named: the newest one that recorded calls (an empty one is a few hundred bytes: `swift test` ends
/// with a second test process that often runs nothing), else the newest one; one that cannot be read is skipped.
private func newestTrace() throws -> TraceFile {
    let found = (traces(in: "trail-traces") + traces(in: ".")).sorted { modified($0) > modified($1) }
    guard !found.isEmpty else {
        throw UsageError(
            description: "no trace here (./trail-traces or *.trace); record one with TRAIL_TRACE=record or name it")
    }
    let withCalls = found.filter { size($0) > 512 }
    guard let newest = (withCalls + found.filter { size($0) <= 512 }).lazy.compactMap(openOrSkip).first else {
        throw VerbFailure.input("no trace could be read (see above)")
    }
    if found.count > 1 {
        let folder = (newest.path as NSString).deletingLastPathComponent
        printError(
            "trail: reading \(newest.path), the newest of \(found.count) traces; name the folder (\(folder.isEmpty ? "." : folder)) to read them all"
        )
    }
    return newest
}

/// Says on stderr what is missing from the traces: before reading, what a wrapped file's size limit cut
/// (so that it comes before a long replay); after, the rest.
func reportGaps(_ files: [TraceFile], before: Bool = false) {
    // A test suite's exit tests and crash tests end their processes on purpose: beyond a few, one line says them.
    let listedUnended = 3
    let unended = before ? [] : files.filter { !$0.truncated && !$0.complete }
    if unended.count > listedUnended {
        let names = unended.prefix(listedUnended).map { ($0.path as NSString).lastPathComponent }
        printError(
            "trail: \(unended.count) traces have no end record (their processes crashed, were killed, or are still "
                + "running): \(names.joined(separator: ", ")) and \(unended.count - listedUnended) more; showing what is there"
        )
    }
    for file in files {
        if let cut = file.cut, cut.records > 0, before == file.wrapped {
            let which =
                cut.policy == .keepFirst
                ? "the last ones (TRAIL_TRACE_KEEP=first)" : "the oldest ones (TRAIL_TRACE_KEEP=last)"
            printError(
                "trail: \(file.path): the size limit (TRAIL_TRACE_MAX_SIZE) cut \(cut.records) records (\(cut.bytes >> 20) MiB), \(which)"
            )
        }
        if before { continue }
        if file.truncated {
            printError("trail: \(file.path) ends early (the process died while writing?); showing what is there")
        } else if !file.complete, unended.count <= listedUnended {
            printError(
                "trail: \(file.path) has no end record: the process crashed, was killed, or is still running; showing what is there"
            )
        }
        if let note = file.skippedValues.note { printError("trail: \(file.path): \(note)") }
        if file.endDropped > 0 {
            printError("trail: \(file.path): \(file.endDropped) records were dropped while recording (buffers full)")
        }
    }
    if !before, !files.isEmpty, !files.contains(where: \.hasRecords) {
        // An untraced build that links the runtime writes a trace with a header and nothing else.
        printError(
            "trail: \(files.count == 1 ? files[0].path + " holds" : "these \(files.count) traces hold") no calls: "
                + "the program ran no traced function. Was it built traced? 'TRAIL=1 swift build --scratch-path .build/trail' "
                + "(after 'trail setup') builds .build/trail/debug/<product>; 'trail run' and 'trail test' do it all with nothing to edit."
        )
    }
    if !before, files.count > 1 {
        let empty = files.filter { !$0.hasRecords }.count
        printError("trail: read \(files.count) traces" + (empty > 0 ? ", \(empty) of them with no calls" : ""))
    }
}

/// The `*.trace` entries of a folder that are not folders themselves (a folder named `x.trace` is not a trace).
func traces(in folder: String) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    return names.filter { $0.hasSuffix(".trace") }.sorted().map { folder == "." ? $0 : folder + "/" + $0 }.filter {
        path in
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && !isFolder.boolValue
    }
}

private func size(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
}

private func modified(_ path: String) -> Date {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date) ?? .distantPast
}
