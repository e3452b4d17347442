import Foundation

/// Functions ranked by time, like uftrace's `report`: gathered from the call stream in one pass, by function
/// across every process read (or per process, with `byProcess`).
public struct Profile: CallVisitor {
    public struct Entry: Sendable {
        public var name: String
        /// The process, when the profile is per process.
        public var pid: UInt32?
        public var executable = ""
        public var calls = 0
        /// Inclusive time, counting a recursive function once per outermost call.
        public var total: Double = 0
        /// Time in the function itself, excluding what it called.
        public var selfTime: Double = 0
        public var minimum = Double.infinity
        public var maximum: Double = 0
        public var sumOfCalls: Double = 0
        public var average: Double { calls == 0 ? 0 : sumOfCalls / Double(calls) }
    }

    /// Sort keys, with uftrace's names accepted too (`call`, `avg`, `min`, `max`, `func`).
    public enum Order: String, Sendable, CaseIterable {
        case total, `self`, calls, average, minimum, maximum, name

        static let aliases: [String: Order] = [
            "call": .calls, "avg": .average, "min": .minimum, "max": .maximum, "func": .name,
        ]

        /// A comma-separated list of keys, the first deciding and the next breaking ties; nil names the first
        /// key that is not one.
        public static func list(_ text: String) -> Result<[Order], UnknownKey> {
            var keys: [Order] = []
            for word in text.split(separator: ",", omittingEmptySubsequences: false) {
                let key = word.trimmingCharacters(in: .whitespaces).lowercased()
                guard let order = Order(rawValue: key) ?? aliases[key] else { return .failure(UnknownKey(key: key)) }
                keys.append(order)
            }
            return .success(keys)
        }

        public struct UnknownKey: Error {
            public var key: String
        }

        /// -1, 0 or 1: whether `a` comes before `b` under this key (times and counts descending, names ascending).
        func compare(_ a: Entry, _ b: Entry) -> Int {
            func descending<T: Comparable>(_ x: T, _ y: T) -> Int { x > y ? -1 : x < y ? 1 : 0 }
            switch self {
            case .total: return descending(a.total, b.total)
            case .self: return descending(a.selfTime, b.selfTime)
            case .calls: return descending(a.calls, b.calls)
            case .average: return descending(a.average, b.average)
            case .minimum: return descending(a.minimum, b.minimum)
            case .maximum: return descending(a.maximum, b.maximum)
            case .name: return a.name < b.name ? -1 : a.name > b.name ? 1 : 0
            }
        }
    }

    /// Per site, in ticks of the current process; folded into `entries` at each process's end.
    struct Tally {
        var calls = 0
        var total: UInt64 = 0
        var selfTicks: UInt64 = 0
        var minimum = UInt64.max
        var maximum: UInt64 = 0
        var sum: UInt64 = 0

        /// Another reading's figures for the same site, as if this one had counted them.
        mutating func add(_ other: Tally) {
            calls += other.calls
            total &+= other.total
            selfTicks &+= other.selfTicks
            sum &+= other.sum
            minimum = min(minimum, other.minimum)
            maximum = max(maximum, other.maximum)
        }
    }

    let byProcess: Bool
    var tallies: [Tally] = []
    var merged: [String: Entry] = [:]
    public private(set) var processes: [TraceProcess] = []

    public init(byProcess: Bool = false) {
        self.byProcess = byProcess
    }

    public mutating func beginProcess(_ process: TraceProcess) {
        tallies.removeAll(keepingCapacity: true)
    }

    public mutating func exit(_ call: CallEvent, tag: Int32) {
        let site = Int(call.site)
        if site >= tallies.count { tallies.append(contentsOf: repeatElement(Tally(), count: site + 1 - tallies.count)) }
        let duration = call.end &- call.start
        tallies[site].calls += 1
        tallies[site].sum &+= duration
        if call.outermost { tallies[site].total &+= duration }
        tallies[site].selfTicks &+= duration > call.childTicks ? duration - call.childTicks : 0
        if duration < tallies[site].minimum { tallies[site].minimum = duration }
        if duration > tallies[site].maximum { tallies[site].maximum = duration }
    }

    /// Adds what another profile gathered from the same process before its end, its site indices `from`'s,
    /// found again in `table` (ProfileInHalves). Sums of ticks add up to what one reader would have counted.
    mutating func add(_ other: Profile, sites from: SiteTable, into table: SiteTable) {
        for (site, tally) in other.tallies.enumerated() where tally.calls > 0 {
            let index = Int(table.index(from.texts[site]))
            if index >= tallies.count {
                tallies.append(contentsOf: repeatElement(Tally(), count: index + 1 - tallies.count))
            }
            tallies[index].add(tally)
        }
    }

    /// Adds what a `SyncCallWalk` handed on for the current process (same sites).
    mutating func add(_ other: SiteTallies) {
        for index in 0 ..< other.capacity where other.tallies[index].calls > 0 {
            let tally = other.tallies[index]
            if index >= tallies.count {
                tallies.append(contentsOf: repeatElement(Tally(), count: index + 1 - tallies.count))
            }
            tallies[index].add(tally)
        }
    }

    public mutating func endProcess(_ process: TraceProcess) {
        processes.append(process)
        for (site, tally) in tallies.enumerated() where tally.calls > 0 {
            let name = process.sites[Int32(site)].name
            let key = byProcess ? "\(process.pid)\u{0}\(name)" : name
            var entry = merged[key] ?? Entry(name: name, pid: byProcess ? process.pid : nil)
            if byProcess { entry.executable = process.file.executableName }
            let ns = { process.nanoseconds(duration: $0) }
            entry.calls += tally.calls
            entry.total += ns(tally.total)
            entry.selfTime += ns(tally.selfTicks)
            entry.sumOfCalls += ns(tally.sum)
            entry.minimum = min(entry.minimum, ns(tally.minimum))
            entry.maximum = max(entry.maximum, ns(tally.maximum))
            merged[key] = entry
        }
    }

    public func entries(_ order: Order) -> [Entry] { entries([order]) }

    /// Entries sorted by the keys in turn, then by name and process, so that the order is always the same.
    public func entries(_ keys: [Order], excluding excluded: NamePattern? = nil) -> [Entry] {
        var entries = Array(merged.values)
        if let excluded { entries.removeAll { excluded.matches($0.name) } }
        entries.sort { a, b in
            for key in keys + [.name] {
                let result = key.compare(a, b)
                if result != 0 { return result < 0 }
            }
            return (a.pid ?? 0) < (b.pid ?? 0)
        }
        return entries
    }

    public func render(_ order: Order = .total) -> String { render([order]) }

    /// The table, without the functions `excluded` matches.
    public func render(_ keys: [Order], excluding excluded: NamePattern? = nil) -> String {
        let width = byProcess ? max(10, merged.values.map(\.executable.count).max() ?? 0) : 0
        let pidColumn =
            byProcess ? "       PID  " + "Executable".padding(toLength: width, withPad: " ", startingAt: 0) : ""
        var out = "  Total time   Self time       Calls     Average     Minimum     Maximum\(pidColumn)  Function\n"
        out +=
            "  ==========  ==========  ==========  ==========  ==========  =========="
            + (byProcess ? "  ========  " + String(repeating: "=", count: width) : "") + "  ====================\n"
        for entry in entries(keys, excluding: excluded) {
            var columns =
                [entry.total, entry.selfTime].map { "  " + DurationFormat.format($0) }.joined()
                + "  " + String(format: "%10d", entry.calls)
                + [entry.average, entry.minimum, entry.maximum].map { "  " + DurationFormat.format($0) }.joined()
            if let pid = entry.pid {
                columns +=
                    "  " + String(format: "%8u", pid) + "  "
                    + entry.executable.padding(toLength: width, withPad: " ", startingAt: 0)
            }
            out += columns + "  " + entry.name + "\n"
        }
        return out
    }
}
