/// A report's figures per site as a `SyncCallWalk` hands on calls (`ProfileReading`): `Profile.Tally`s in a
/// buffer of their own, since the array in `Profile` costs a uniqueness and a bounds check per field per call.
/// Folded into the profile (`Profile.add`) before the process ends.
final class SiteTallies {
    private(set) var tallies = UnsafeMutablePointer<Profile.Tally>.allocate(capacity: 0)
    private(set) var capacity = 0
    /// DROPPED records' counts, for `TraceProcess.dropped`.
    private(set) var droppedRecords: UInt64 = 0

    deinit {
        tallies.deinitialize(count: capacity)
        tallies.deallocate()
    }

    @inline(__always)
    func ended(site: Int32, duration: UInt64, childTicks: UInt64, outermost: Bool) {
        let index = Int(site)
        if index >= capacity { makeRoom(for: index) }
        let tally = tallies + index
        tally.pointee.calls += 1
        tally.pointee.sum &+= duration
        if outermost { tally.pointee.total &+= duration }
        tally.pointee.selfTicks &+= duration > childTicks ? duration - childTicks : 0
        if duration < tally.pointee.minimum { tally.pointee.minimum = duration }
        if duration > tally.pointee.maximum { tally.pointee.maximum = duration }
    }

    @inline(__always)
    func dropped(_ records: UInt64) { droppedRecords &+= records }

    func addTotal(_ ticks: UInt64, site: Int32) {
        if Int(site) >= capacity { makeRoom(for: Int(site)) }
        tallies[Int(site)].total &+= ticks
    }

    private func makeRoom(for index: Int) {
        let larger = UnsafeMutablePointer<Profile.Tally>.allocate(capacity: index + 64)
        larger.moveInitialize(from: tallies, count: capacity)
        (larger + capacity).initialize(repeating: Profile.Tally(), count: index + 64 - capacity)
        tallies.deallocate()
        tallies = larger
        capacity = index + 64
    }
}
