import TrailFormat

/// VALUE records into the values of the call open on their thread (Docs/trace-format.md, "Values"): a VALUE record
/// and its DATA records are gathered on the thread's state, decoded once by `ValueRecord.decode`, and kept in
/// `TraceProcess.callValues` until the call ends. One that is cut or malformed is counted in the file's
/// `skippedValues`, never shown.
extension CallBuilder {
    /// An AUX record that no call record took: a VALUE record, or DATA without its VALUE record.
    mutating func takeValue(_ record: TraceRecord, state: ThreadState) {
        guard ValueRecord.isValue(record) else {
            // A call's AUX records are taken after their call record; a stray one is DATA once values are seen.
            if state.valuesSeen { file.skippedValues.skip(1, because: "data without its value record") }
            return
        }
        state.valuesSeen = true
        let data = Int((record.word >> ValueRecord.dataShift) & ValueRecord.dataMax)
        if data == 0 {
            decodeValue([record], state: state)
        } else {
            state.valueParts = [record]
            state.valueDataLeft = data
        }
    }

    /// The next record while a VALUE record waits for `valueDataLeft` DATA records: true when it was one. Any
    /// other record cuts the value short (it is skipped) and is handled as usual.
    mutating func takeValueData(_ record: TraceRecord, state: ThreadState) -> Bool {
        let isData = record.kind == .aux && (record.word >> ValueRecord.tagShift) & 0xFFF == 0
        if isData { state.valueParts.append(record) }
        state.valueDataLeft = isData ? state.valueDataLeft - 1 : 0
        if state.valueDataLeft == 0 {
            decodeValue(state.valueParts, state: state)
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

    private mutating func decodeValue(_ records: [TraceRecord], state: ThreadState) {
        switch ValueRecord.decode(records, at: 0) {
        case .malformed(let reason, let count):
            file.skippedValues.skip(count, because: reason)
        case .value(let value, _):
            // Its call's entry was cut: nothing to attach it to.
            guard let call = state.stack.last else { return }
            let descriptor = file.names[value.descriptor] ?? "?"
            process.callValues[call.spanId, default: []].append(CallValue(value, descriptor: descriptor))
        }
    }
}
