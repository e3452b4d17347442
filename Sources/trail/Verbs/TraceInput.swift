import Foundation
import TrailCommandLine
import TrailTrace

let traceArgument = "[TRACE]"
let traceDetails = "TRACE defaults to the newest *.trace file in the current folder."

/// The trace named on the command line, or the newest `*.trace` here.
func loadTree(_ arguments: ParsedArguments) throws -> (TraceFile, CallTree) {
    guard arguments.positionals.count <= 1 else { throw UsageError(description: "give at most one trace file") }
    let path: String
    if let given = arguments.positionals.first {
        path = given
    } else {
        let here = FileManager.default.currentDirectoryPath
        let traces = ((try? FileManager.default.contentsOfDirectory(atPath: here)) ?? []).filter { $0.hasSuffix(".trace") }
        let newest = traces.max { modified($0) < modified($1) }
        guard let newest else { throw UsageError(description: "no *.trace file here; record one with TRAIL_TRACE=record or name it") }
        path = newest
    }
    let trace = try TraceFile(path: path)
    if trace.truncated { printError("trail: \(path) ends early (the process died while writing?); showing what is there") }
    let tree = CallTree(trace)
    if tree.dropped > 0 { printError("trail: \(tree.dropped) records were dropped while recording (buffers full)") }
    return (trace, tree)
}

private func modified(_ path: String) -> Date {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date) ?? .distantPast
}
