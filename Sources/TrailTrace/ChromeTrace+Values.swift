import TrailFormat

/// A call's recorded values in its event's `args`: `"arguments":"n: 30"` as the call shows them, and
/// `"result":"832040"` (or `"thrown"`); nothing for a call without values.
extension ChromeTrace {
    func valueArgs(_ call: CallEvent) -> String {
        guard let values = process!.callValues[call.spanId] else { return "" }
        var out = ""
        let arguments = values.filter { $0.role == .argument }
        if !arguments.isEmpty {
            let list = arguments.map { $0.label == "_" ? $0.text : $0.label + ": " + $0.text }
            out += #","arguments":"# + JSONString.quote(list.joined(separator: ", "))
        }
        if let last = values.last(where: { $0.role != .argument }) {
            out += (last.role == .thrown ? #","thrown":"# : #","result":"#) + JSONString.quote(last.text)
        }
        return out
    }
}
