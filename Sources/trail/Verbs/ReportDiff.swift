import TrailCommandLine
import TrailTrace
import TrailViews

/// `trail report --diff OLD NEW`: OLD and NEW are each a trace or a folder of them, added up by function.
func diffReport(_ arguments: ParsedArguments) throws -> Int32 {
    guard let old = arguments.value("diff") else { return 2 }
    guard !arguments.positionals.isEmpty else {
        throw UsageError(description: "--diff OLD needs the NEW traces to compare with: trail report --diff OLD NEW")
    }
    var threshold: ProfileDiff.Threshold?
    if let text = arguments.value("threshold") {
        guard let parsed = ProfileDiff.Threshold(text) else {
            throw UsageError(
                description: "--threshold: a time with its unit (500ns, 10us, 1.5ms, 2s) or a percentage (10%), "
                    + "not '\(text)'")
        }
        threshold = parsed
    }
    func profile(_ paths: [String]) throws -> Profile {
        var traces = arguments
        traces.positionals = paths
        let files = try openTraces(traces)
        var profile = Profile()
        CallStream().read(files, into: &profile)
        reportGaps(files)
        return profile
    }
    let diff = ProfileDiff(old: try profile([old]), new: try profile(arguments.positionals), threshold: threshold)
    startPager(arguments)
    printOut(diff.render(oldName: old, newName: arguments.positionals.joined(separator: " ")))
    return 0
}
