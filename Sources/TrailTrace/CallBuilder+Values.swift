import TrailFormat

/// VALUE records into the values of the call open on their thread (Docs/trace-format.md, "Values"): a VALUE record
/// and its DATA records are gathered on the thread's state, decoded once by `ValueRecord.decode`, and kept in
/// `TraceProcess.callValues` until the call ends. One that is cut or malformed is counted in the file's
/// `skippedValues`, never shown.
extension CallBuilder {
    /// An AUX record that no call record took: a VALUE record, or DATA without its VALUE record.
    /// `position`: the record's, when known (a result right before an ASYNC_EXIT is that async call's).
    mutating func takeValue(_ record: TraceRecord, state: ThreadState, position: UInt64 = .max) {
        guard ValueRecord.isValue(record) else {
            // A call's AUX records are taken after their call record; a stray one is DATA once values are seen.
            if state.valuesSeen { file.skippedValues.skip(1, because: "data without its value record") }
            return
        }
        state.valuesSeen = true
        let data = Int((record.word >> ValueRecord.dataShift) & ValueRecord.dataMax)
        if data == 0 {
            decodeValue([record], state: state, end: position)
        } else {
            state.valueParts = [record]
            state.valueDataLeft = data
        }
    }

    /// The next record while a VALUE record waits for `valueDataLeft` DATA records: true when it was one. Any
    /// other record cuts the value short (it is skipped) and is handled as usual.
    mutating func takeValueData(_ record: TraceRecord, state: ThreadState, position: UInt64 = .max) -> Bool {
        let isData = record.kind == .aux && (record.word >> ValueRecord.tagShift) & 0xFFF == 0
        if isData { state.valueParts.append(record) }
        state.valueDataLeft = isData ? state.valueDataLeft - 1 : 0
        if state.valueDataLeft == 0 {
            decodeValue(state.valueParts, state: state, end: isData ? position : .max)
            state.valueParts.removeAll(keepingCapacity: true)
        }
        return isData
    }

    /// The end of the records: a value still waiting for DATA records was cut with the trace.
    mutating func finishValues() {
        for state in threads where state.valueDataLeft > 0 {
            state.valueDataLeft = 0
            decodeValue(state.valueParts, state: state)
            state.valueParts.removeAll()
        }
    }

    /// `end`: the position of the value's last record, when known.
    private mutating func decodeValue(_ records: [TraceRecord], state: ThreadState, end: UInt64 = .max) {
        switch ValueRecord.decode(records, at: 0) {
        case .malformed(let reason, let count):
            file.skippedValues.skip(count, because: reason)
        case .value(let value, _):
            let callValue = CallValue(value, descriptor: file.names[value.descriptor] ?? "?")
            // An async call's arguments follow its entry at the depth it entered at (nothing deeper is its).
            if value.role == .argument, let target = state.asyncArguments, target.depth == state.stack.count {
                process.callValues[target.spanId, default: []].append(callValue)
                return
            }
            // A result is the call's whose EXIT or ASYNC_EXIT directly follows it (`takeResult`): kept until then,
            // so that one whose exit was cut is never shown as another call's.
            if value.role != .argument, end != .max {
                state.lastResult = (callValue, end)
                return
            }
            // Its call's entry was cut: nothing to attach it to.
            guard let call = state.stack.last else { return }
            process.callValues[call.spanId, default: []].append(callValue)
        }
    }

    /// At the exit at `position` of the call `spanId`: the result or error recorded right before it is its.
    mutating func takeResult(spanId: UInt64, exitAt position: UInt64, state: ThreadState) {
        guard let result = state.lastResult else { return }
        state.lastResult = nil
        if result.end &+ 1 == position { process.callValues[spanId, default: []].append(result.value) }
    }
}
