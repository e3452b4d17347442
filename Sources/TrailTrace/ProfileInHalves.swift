import TrailFormat

/// One process's trace read into a `Profile` by two threads, each half of the file's blocks, as `ProfileReading`
/// reads a whole one. A profile is sums, minima and maxima per function, so the halves' add up to one reader's,
/// once the second half's calls are settled against the calls open at the split, which only the first thread
/// knows when it gets there. So the second thread starts with each thread's open calls unknown (`UnknownStart`:
/// as many as the first record's depth says), and the first joins its walk onto its own at the split
/// (`SyncCallWalk.join`). A first half with a task, an async call or a tracer span is read by the first
/// thread alone, to the end; so is the second half when the second thread met one of those, or DATA records it
/// cannot place (their VALUE record before the split), or guessed a thread's open calls wrong (exits lost at the
/// split), or when a value waits at the split for its DATA records.
struct ProfileInHalves {
    /// Files of fewer blocks are read by one thread: a second would cost more than it saves.
    static let minimumBlocks = 16
    /// The first thread's share of the blocks: the second also skims the first half's chunk headers for names.
    static let firstShare = 0.5

    /// Reads `process` into `profile`, beginning and ending the process; false (nothing read) when the file is
    /// too small to split or no thread could be started.
    static func read(_ process: TraceProcess, into profile: inout Profile, minimumBlocks: Int = minimumBlocks) -> Bool {
        let file = process.file
        guard file.blockCount >= max(2, minimumBlocks) else { return false }
        let split = Int(Double(file.blockCount) * firstShare)
        let second = SecondHalf(file: TraceFile(copying: file), split: split)
        guard let thread = JoinedThread({ second.run() }) else { return false }
        var reader = TraceReader(process: process)
        profile.beginProcess(process)
        let chunks = file.chunks()
        chunks.end = split
        var walk = SyncCallWalk()
        let tallies = SiteTallies()
        let halved = withExtendedLifetime(chunks) {
            var stop = walk.walk(chunks, &reader.builder, tallies)
            if stop == nil {
                thread.join()
                // A value cut by the split would be counted at the next record, which the second thread read.
                if second.synchronous, !reader.builder.threads.contains(where: { $0.valueDataLeft > 0 }),
                    walk.join(second.walk, from: second.reader.builder, into: &reader.builder, tallies)
                {
                    return true
                }
            }
            chunks.end = .max
            if stop == nil { stop = walk.walk(chunks, &reader.builder, tallies) }
            reader.goOn(after: walk, from: stop, chunks, &profile)
            reader.builder.release(upTo: .max, &profile)
            return false
        }
        reader.note(chunks)
        guard halved else {
            reader.add(tallies, to: &profile)
            reader.builder.finish(&profile)
            return true
        }
        process.lastTicks = max(process.lastTicks, walk.lastTicks)
        walk.finish(at: max(process.lastTicks, second.reader.builder.process.lastTicks), tallies)
        reader.add(tallies, to: &profile)
        merge(second, into: process, profile: &profile)
        file.readInHalves = true
        if file.endDropped > process.dropped { process.dropped = file.endDropped }
        profile.endProcess(process)
        return true
    }

    /// What the second thread learnt of the process, added to what the first did.
    private static func merge(_ second: SecondHalf, into process: TraceProcess, profile: inout Profile) {
        let other = second.reader.builder.process
        let file = process.file
        // The second thread read every chunk's metadata, the first half's too.
        file.metadata = second.file.metadata
        if second.truncated { file.truncated = true }
        process.lastTicks = max(process.lastTicks, other.lastTicks)
        process.dropped += other.dropped
        // Values skipped in the second half come after the first half's.
        let skipped = second.file.skippedValues
        if skipped.records > 0 { file.skippedValues.skip(skipped.records, because: skipped.firstReason) }
        for thread in other.threads {
            if let index = process.threads.firstIndex(where: { $0.slot == thread.slot && $0.tid == thread.tid }) {
                if !thread.name.isEmpty { process.threads[index].name = thread.name }
                process.threads[index].dropped = max(process.threads[index].dropped, thread.dropped)
            } else {
                process.threads.append(thread)
            }
        }
        profile.add(second.profile, sites: other.sites, into: process.sites)
    }
}

/// The second thread's work: the first half's names and threads from its chunk headers, then the second half
/// walked from unknown open calls.
private final class SecondHalf {
    let file: TraceFile
    let split: Int
    var reader: TraceReader
    var walk = SyncCallWalk()
    var profile = Profile()
    /// The second half holds synchronous calls alone (else the first thread reads it).
    var synchronous = false
    var truncated = false

    init(file: TraceFile, split: Int) {
        self.file = file
        self.split = split
        reader = TraceReader(process: TraceProcess(file: file, sites: SiteTable()))
    }

    func run() {
        profile.beginProcess(reader.builder.process)
        let skim = file.chunks()
        skim.end = split
        skim.prefetches = false
        while let next = skim.next() {
            file.metadata.absorb(next.chunk)
            if case .thread(let thread) = next.chunk { reader.builder.noteThread(thread) }
        }
        walk.startsUnknown = true
        let chunks = file.chunks(from: split)
        let tallies = SiteTallies()
        synchronous = withExtendedLifetime(chunks) { walk.walk(chunks, &reader.builder, tallies) == nil }
        reader.builder.finishValues()
        truncated = skim.truncated || chunks.truncated
        reader.add(tallies, to: &profile)
    }
}
