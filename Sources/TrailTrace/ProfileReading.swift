/// A report's reading of one process (`CallStream.read(_:into: inout Profile)`): synchronous calls go straight from
/// their records to per-site tallies (`SyncCallWalk` into `SiteTallies`), a few nanoseconds a record instead of a
/// call event at each end of each call. From the first record the walk does not follow (a task, an async call, a
/// tracer span) the builder goes on as it does for every viewer, from the walk's open calls.
extension TraceReader {
    /// The whole process on this thread (a file too small for `ProfileInHalves`).
    mutating func readProfile(_ profile: inout Profile) {
        profile.beginProcess(builder.process)
        let chunks = file.chunks()
        var walk = SyncCallWalk()
        let tallies = SiteTallies()
        withExtendedLifetime(chunks) {
            let stop = walk.walk(chunks, &builder, tallies)
            goOn(after: walk, from: stop, chunks, &profile)
            builder.release(upTo: .max, &profile)
        }
        note(chunks)
        add(tallies, to: &profile)
        builder.finish(&profile)
    }

    /// Takes over from `walk`: its open calls, then `stop` (what was left of the chunk it stopped at; nil when
    /// the cursor had stopped), then the cursor's chunks, as any viewer reads them.
    mutating func goOn(
        after walk: SyncCallWalk, from stop: TraceFile.ChunkCursor.Chunk?, _ chunks: TraceFile.ChunkCursor,
        _ profile: inout Profile
    ) {
        walk.install(into: &builder)
        if let stop {
            // The walk already gave the chunk to the file's metadata.
            builder.take(stop.chunk, block: stop.block, &profile)
            if case .records = stop.chunk, stop.block < chunks.firstBlockInUse { chunks.firstBlockInUse = stop.block }
        }
        self.walk(chunks, &profile)
    }

    /// What a walk handed on, into the profile and the process, before the process ends.
    func add(_ tallies: SiteTallies, to profile: inout Profile) {
        profile.add(tallies)
        builder.process.dropped += tallies.droppedRecords
    }
}
