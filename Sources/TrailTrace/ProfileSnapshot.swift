/// A `Profile`'s entries as they stand, a value another thread can hold while the reading goes on.
public struct ProfileSnapshot: Sendable {
    var merged: [String: Profile.Entry] = [:]

    public init() {}

    public var isEmpty: Bool { merged.isEmpty }

    /// Sorted as `Profile.entries` sorts them.
    public func entries(_ order: Profile.Order) -> [Profile.Entry] {
        var profile = Profile()
        profile.merged = merged
        return profile.entries(order)
    }
}

extension Profile {
    /// The entries so far, with what the process being read (`open`) counted up to now, as if it ended here.
    public func snapshot(open process: TraceProcess?) -> ProfileSnapshot {
        var copy = self
        if let process { copy.endProcess(process) }
        var snapshot = ProfileSnapshot()
        snapshot.merged = copy.merged
        return snapshot
    }

    /// Adds the entries of another profile whose processes all ended (a child process read in the middle of
    /// this one's): tallies are per process, so the two are counted apart and merged by name.
    mutating func add(ended other: Profile) {
        for (key, entry) in other.merged {
            guard var mine = merged[key] else {
                merged[key] = entry
                continue
            }
            mine.calls += entry.calls
            mine.total += entry.total
            mine.selfTime += entry.selfTime
            mine.sumOfCalls += entry.sumOfCalls
            mine.minimum = min(mine.minimum, entry.minimum)
            mine.maximum = max(mine.maximum, entry.maximum)
            merged[key] = mine
        }
    }
}
