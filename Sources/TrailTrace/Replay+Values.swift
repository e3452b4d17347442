/// Replay's lines with recorded values: `App.fib(n: 30) {`, `} = 832040 /* App.fib(n:) */`, a leaf as
/// `App.fib(n: 1) = 1;`. A call without values prints as it always did.
extension Replay {
    /// The call's name with its arguments in place of its labels.
    func shownName(_ call: CallEvent) -> String {
        let name = process!.name(call)
        guard !process!.callValues.isEmpty, let values = process!.callValues[call.spanId] else { return name }
        return CallValue.callName(name, values)
    }

    /// ` = value` or ` throws error` when the call's result was recorded, else empty.
    func outcome(_ call: CallEvent) -> String {
        guard !process!.callValues.isEmpty, let values = process!.callValues[call.spanId] else { return "" }
        return CallValue.outcome(values)
    }
}
