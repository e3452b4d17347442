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

    public enum Order: String, Sendable, CaseIterable {
        case total, `self`, calls, name
    }

    /// Per site, in ticks of the current process; folded into `entries` at each process's end.
    struct Tally {
        var calls = 0
        var total: UInt64 = 0
        var selfTicks: UInt64 = 0
        var minimum = UInt64.max
        var maximum: UInt64 = 0
        var sum: UInt64 = 0
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

    public func entries(_ order: Order) -> [Entry] {
        var entries = Array(merged.values)
        switch order {
        case .total: entries.sort { ($0.total, $1.name, $1.pid ?? 0) > ($1.total, $0.name, $0.pid ?? 0) }
        case .self: entries.sort { ($0.selfTime, $1.name, $1.pid ?? 0) > ($1.selfTime, $0.name, $0.pid ?? 0) }
        case .calls: entries.sort { ($0.calls, $1.name, $1.pid ?? 0) > ($1.calls, $0.name, $0.pid ?? 0) }
        case .name: entries.sort { ($0.name, $0.pid ?? 0) < ($1.name, $1.pid ?? 0) }
        }
        return entries
    }

    public func render(_ order: Order = .total) -> String {
        let width = byProcess ? max(10, merged.values.map(\.executable.count).max() ?? 0) : 0
        let pidColumn = byProcess ? "       PID  " + "Executable".padding(toLength: width, withPad: " ", startingAt: 0) : ""
        var out = "  Total time   Self time       Calls     Average     Minimum     Maximum\(pidColumn)  Function\n"
        out += "  ==========  ==========  ==========  ==========  ==========  =========="
            + (byProcess ? "  ========  " + String(repeating: "=", count: width) : "") + "  ====================\n"
        for entry in entries(order) {
            var columns = [entry.total, entry.selfTime].map { "  " + DurationFormat.format($0) }.joined()
                + "  " + String(format: "%10d", entry.calls)
                + [entry.average, entry.minimum, entry.maximum].map { "  " + DurationFormat.format($0) }.joined()
            if let pid = entry.pid {
                columns += "  " + String(format: "%8u", pid) + "  " + entry.executable.padding(toLength: width, withPad: " ", startingAt: 0)
            }
            out += columns + "  " + entry.name + "\n"
        }
        return out
    }
}
