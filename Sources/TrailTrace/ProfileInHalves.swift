import Foundation
import TrailFormat

/// One process's trace read into a `Profile` by two threads, each a half of the file's blocks. A profile is sums,
/// minima and maxima per function, so the halves' add up to one reader's, provided the second half starts from
/// the state the first leaves: every thread's stack of open calls. Those the second thread works out itself with
/// a pass over the first half (`SyncCallWalk.scan`), so the first half is the larger share. Each half is read
/// as `ProfileReading` reads a whole process. Only synchronous calls are worked out that way: a first half with a task, an async
/// call or a tracer span is read by one thread after all (the verdict comes early, from the scan).
struct ProfileInHalves {
    /// Files of fewer blocks are read by one thread: a second would cost more than it saves.
    static let minimumBlocks = 16
    /// The first thread's share of the blocks: it reads them whole while the second scans them, then reads the rest.
    static let firstShare = 0.57

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
        var tallies = SiteTallies()
        let halved = withExtendedLifetime(chunks) {
            let stop = walk.walk(chunks, &reader.builder, &tallies)
            chunks.end = .max
            guard stop == nil, second.verdict.wait() else {
                // Not synchronous calls alone (the second thread's scan stops at the same record): this thread
                // reads the rest, as one reader does.
                reader.goOn(after: walk, from: stop, chunks, &profile)
                reader.builder.release(upTo: .max, &profile)
                return false
            }
            // The second half's records are the other thread's, and so are the calls open at the split; what
            // the rest of the file says of the process is this file's too.
            while let next = chunks.next() { file.metadata.absorb(next.chunk) }
            return true
        }
        reader.note(chunks)
        thread.join()
        reader.add(tallies, to: &profile)
        if halved {
            merge(second, into: process, profile: &profile)
            if file.endDropped > process.dropped { process.dropped = file.endDropped }
            profile.endProcess(process)
        } else {
            reader.builder.finish(&profile)
        }
        return true
    }

    /// What the second thread learnt of the process, added to what the first did.
    private static func merge(_ second: SecondHalf, into process: TraceProcess, profile: inout Profile) {
        let other = second.reader.builder.process
        process.lastTicks = max(process.lastTicks, other.lastTicks)
        process.dropped += other.dropped
        // Values cut or malformed in the second half: the first half had none (the scan stops at the first).
        let skipped = second.file.skippedValues
        if skipped.records > 0 { process.file.skippedValues.skip(skipped.records, because: skipped.firstReason) }
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

/// The second thread's work: scan the first half for the open calls, then read the second half from there.
private final class SecondHalf {
    let file: TraceFile
    let split: Int
    var reader: TraceReader
    var profile = Profile()
    let verdict = Verdict()

    init(file: TraceFile, split: Int) {
        self.file = file
        self.split = split
        reader = TraceReader(process: TraceProcess(file: file, sites: SiteTable()))
    }

    func run() {
        profile.beginProcess(reader.builder.process)
        var walk = SyncCallWalk()
        let synchronous = walk.scan(file, until: split, into: &reader.builder)
        verdict.say(synchronous)
        guard synchronous else { return }
        let chunks = file.chunks(from: split)
        var tallies = SiteTallies()
        withExtendedLifetime(chunks) {
            let stop = walk.walk(chunks, &reader.builder, &tallies)
            reader.goOn(after: walk, from: stop, chunks, &profile)
            reader.builder.release(upTo: .max, &profile)
        }
        reader.add(tallies, to: &profile)
        reader.builder.finishOpenCalls(&profile)
    }
}

/// Whether the first half holds synchronous calls alone, said once by the second thread, waited for by the first.
private final class Verdict {
    private let condition = NSCondition()
    private var said: Bool?

    func say(_ value: Bool) {
        condition.lock()
        said = value
        condition.signal()
        condition.unlock()
    }

    func wait() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while said == nil { condition.wait() }
        return said!
    }
}
