import Foundation
import TrailCommandLine
import TrailTrace

let traceArgument = "[TRACE|FOLDER]..."
let traceDetails = """
    Give trace files, or folders of them (every *.trace inside), to see several processes together. With none,
    the newest trace in ./trail-traces (where TRAIL_TRACE=record writes by default) or here.
    """

/// The traces named on the command line (files, or folders of `*.trace`), opened and ordered by start time.
func openTraces(_ arguments: ParsedArguments) throws -> [TraceFile] {
    var paths: [String] = []
    // Files found in a folder may be anything named *.trace: what is not a trace is skipped, with a note.
    var found: Set<String> = []
    for given in arguments.positionals {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: given, isDirectory: &isFolder) else {
            throw VerbFailure.input("\(given): no such trace file or folder")
        }
        if isFolder.boolValue {
            let inFolder = traces(in: given)
            guard !inFolder.isEmpty else { throw VerbFailure.input("\(given): no *.trace files in this folder") }
            paths += inFolder
            found.formUnion(inFolder)
        } else {
            paths.append(given)
        }
    }
    if paths.isEmpty {
        // The newest trace with calls in it (an empty one is a few hundred bytes): `swift test` ends with a
        // second test process that often runs nothing.
        let found = (traces(in: "trail-traces") + traces(in: ".")).sorted { modified($0) > modified($1) }
        guard let newest = found.first(where: { size($0) > 512 }) ?? found.first else {
            throw UsageError(
                description: "no trace here (./trail-traces or *.trace); record one with TRAIL_TRACE=record or name it")
        }
        paths = [newest]
        if found.count > 1 {
            let folder = (newest as NSString).deletingLastPathComponent
            printError(
                "trail: reading \(newest), the newest of \(found.count) traces; name the folder (\(folder.isEmpty ? "." : folder)) to read them all"
            )
        }
    }
    var files: [TraceFile] = []
    for path in paths {
        do {
            files.append(try TraceFile(path: path))
        } catch let error as TraceFile.FormatError {
            guard found.contains(path) else { throw VerbFailure.input(error.description) }
            printError("trail: skipping \(error.description)")
        }
    }
    guard !files.isEmpty else { throw VerbFailure.input("no trace could be read (see above)") }
    let sorted = files.sorted { ($0.startWallNanoseconds, $0.pid) < ($1.startWallNanoseconds, $1.pid) }
    reportGaps(sorted, before: true)
    return sorted
}

/// Says on stderr what is missing from the traces: before reading, what a wrapped file's size limit cut
/// (so that it comes before a long replay); after, the rest.
func reportGaps(_ files: [TraceFile], before: Bool = false) {
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
        } else if !file.complete {
            printError(
                "trail: \(file.path) has no end record: the process crashed, was killed, or is still running; showing what is there"
            )
        }
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
