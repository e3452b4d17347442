import Foundation

/// `trail report --by-value FUNC`: the calls of the functions FUNC matches, grouped by their arguments
/// (`App.fib(n: 30)`), with count, total, average and maximum, the group with the most time first, to find the
/// inputs that are slow. Calls whose values were not recorded group under the function's name.
public struct ValueGroups: CallVisitor {
    public struct Group: Equatable, Sendable {
        public var call: String
        public var calls = 0
        public var total: Double = 0
        public var maximum: Double = 0
        public var average: Double { calls == 0 ? 0 : total / Double(calls) }
    }

    let pattern: NamePattern
    var process: TraceProcess?
    /// Per site index (shared by every process of a run): whether the pattern matches it; nil before it is asked.
    var matched: [Bool?] = []
    var groups: [String: Group] = [:]
    /// Past this many groups, further argument values add to one `(other values)` group per function.
    static let groupLimit = 100_000

    public init(_ pattern: NamePattern) { self.pattern = pattern }

    public mutating func beginProcess(_ process: TraceProcess) { self.process = process }

    public mutating func exit(_ call: CallEvent, tag: Int32) {
        let process = process!
        let site = Int(call.site)
        if site >= matched.count { matched.append(contentsOf: repeatElement(nil, count: site + 1 - matched.count)) }
        let name = process.name(call)
        if matched[site] == nil { matched[site] = Self.names(name).contains(where: pattern.matches) }
        guard matched[site] == true else { return }
        var key = process.callValues[call.spanId].map { CallValue.callName(name, $0) } ?? name
        if groups[key] == nil, groups.count >= Self.groupLimit { key = name + " (other values)" }
        let duration = process.nanoseconds(duration: call.duration)
        groups[key, default: Group(call: key)].calls += 1
        groups[key]!.total += duration
        groups[key]!.maximum = max(groups[key]!.maximum, duration)
    }

    /// What FUNC may be written as: `App.Account.login(user:)`, or without its labels, module or types
    /// (`App.Account.login`, `Account.login`, `login`).
    static func names(_ name: String) -> [String] {
        var rest = name.prefix { $0 != "(" }
        var names = [name, String(rest)]
        while let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            names.append(String(rest))
        }
        return names
    }

    /// The groups, most total time first (then by call, for a stable order).
    public var sorted: [Group] {
        groups.values.sorted { $0.total != $1.total ? $0.total > $1.total : $0.call < $1.call }
    }

    public func render() -> String {
        var out = "  Total time       Calls     Average     Maximum  Call\n"
        out += "  ==========  ==========  ==========  ==========  ====================\n"
        for group in sorted {
            out +=
                "  " + DurationFormat.format(group.total) + "  " + String(format: "%10d", group.calls)
                + [group.average, group.maximum].map { "  " + DurationFormat.format($0) }.joined() + "  " + group.call
                + "\n"
        }
        return out
    }
}
