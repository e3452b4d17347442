import TrailFormat

/// Reads trace files in one pass and hands a visitor every call at its start and end. Threads of a process
/// are merged by time with the writer's watermarks, so only the records since the last watermark are held;
/// what is kept beyond that is bounded by the sites, threads, call depth and open async calls, never by the
/// number of records. Synchronous calls nest by thread, async calls by task, and a child task's calls hang
/// under the async call that created it (Docs/trace-format.md, "Task trees").
public struct CallStream {
    public let sites = SiteTable()
    /// Whether a report may read a large file on two threads (`ProfileInHalves`) and take its synchronous calls
    /// straight from their records (`ProfileReading`); off, one reader turns every record into calls, as for
    /// the other viewers (what tests hold the report's ways against).
    public var usesBothCores = true
    /// The fewest blocks a file read on two threads has (`ProfileInHalves.minimumBlocks`; tests lower it).
    var twoThreadsFrom = ProfileInHalves.minimumBlocks

    public init() {}

    /// Reads `files` one after another (each is one process) into `visitor`.
    public func stream<V: CallVisitor>(_ files: [TraceFile], into visitor: inout V) {
        for file in files {
            var reader = TraceReader(process: TraceProcess(file: file, sites: sites))
            reader.read(&visitor)
        }
    }

    // The viewers, specialized here: a generic call from another module would not be, and this loop runs
    // once per record.
    public func read(_ files: [TraceFile], into visitor: inout Profile) {
        guard usesBothCores else { return stream(files, into: &visitor) }
        for file in files {
            let process = TraceProcess(file: file, sites: sites)
            if !ProfileInHalves.read(process, into: &visitor, minimumBlocks: twoThreadsFrom) {
                var reader = TraceReader(process: process)
                reader.readProfile(&visitor)
            }
        }
    }
    public func read(_ files: [TraceFile], into visitor: inout Replay) { stream(files, into: &visitor) }
    public func read(_ files: [TraceFile], into visitor: inout FlameGraph) { stream(files, into: &visitor) }
    public func read(_ files: [TraceFile], into visitor: inout ChromeTrace) { stream(files, into: &visitor) }
    public func read(_ files: [TraceFile], into visitor: inout SpanSelection) { stream(files, into: &visitor) }
    public func read(_ files: [TraceFile], into visitor: inout ValueGroups) { stream(files, into: &visitor) }
}
