import TrailFormat

/// The Chrome trace event format (JSON object form), which Perfetto and chrome://tracing load, streamed as the
/// calls end. Each process is its own track group (its pid), each thread its own track. Synchronous calls are
/// complete ("X") events on their thread; async calls are async ("b"/"e") events keyed by call, since they may
/// start and end on different threads. A child task's first call is tied to the async call that created it by a
/// flow arrow (`bind_id` with `flow_out` on the creator's "b", `flow_in` on the child's first slice), which Perfetto
/// draws between async slices too; an event holds one flow id, so an async first call takes its arrow on an
/// instant ("n") at its start. A process started by a call of another (TRACEPARENT) gets an arrow from that call to
/// its first root call, as a legacy flow ("s" and "f", bound to the enclosing slices): those events hold no other
/// flow. Times are microseconds since the earliest process started, so processes line up.
public final class ChromeTrace: CallVisitor {
    let output: TextOutput
    let origin: UInt64
    var process: TraceProcess?
    var first = true
    var dropped: UInt64 = 0
    var cut: UInt64 = 0
    /// The process's start, in nanoseconds after `origin`.
    var offset: Double = 0
    /// The exported span ids that processes of the set started under, those whose arrow has begun, this process's
    /// salt (to name its calls so), and the arrow still to end in this process.
    let spawningSpans: [UInt64: [UInt32]]
    var arrowsBegun: Set<UInt64> = []
    var salt: UInt64 = 0
    var arrowIn: UInt64?

    public init(output: TextOutput, files: [TraceFile]) {
        self.output = output
        origin = files.map(\.startWallNanoseconds).min() ?? 0
        var spawning: [UInt64: [UInt32]] = [:]
        for file in files {
            if let span = file.info(.traceparent).flatMap(TraceParent.init)?.spanID {
                spawning[span, default: []].append(file.pid)
            }
        }
        spawningSpans = spawning
        output.append("{\"traceEvents\":[\n")
    }

    func event(_ text: String) {
        if !first { output.append(",\n") }
        first = false
        output.append(text)
    }

    public func beginProcess(_ process: TraceProcess) {
        self.process = process
        offset = Double(process.file.startWallNanoseconds &- origin)
        if !spawningSpans.isEmpty {
            salt = ProcessTree.salt(of: process.file)
            arrowIn = process.file.info(.traceparent).flatMap(TraceParent.init).map(\.spanID).flatMap {
                arrowsBegun.contains($0) ? $0 : nil
            }
        }
        event(
            #"{"name":"process_name","ph":"M","pid":\#(process.pid),"tid":0,"args":{"name":\#(JSONString.quote(process.file.executableName))}}"#
        )
    }

    /// Microseconds with three decimals, rounded to whole nanoseconds first so children never poke out.
    func micros(_ ticks: UInt64) -> String {
        let ns = UInt64(max(0, (offset + process!.nanoseconds(ticks)).rounded()))
        let fraction = ns % 1000
        return "\(ns / 1000)." + (fraction < 10 ? "00" : fraction < 100 ? "0" : "") + String(fraction)
    }

    public func exit(_ call: CallEvent, tag: Int32) {
        let process = process!
        let site = process.sites[call.site]
        let pid = process.pid
        let tid = process.threads[Int(call.thread)].tid
        let name = JSONString.quote(process.name(call))
        let summary = process.spanSummary(call)
        let details = summary.isEmpty ? "" : #","span":\#(JSONString.quote(summary))"#
        let args =
            #"{"location":\#(JSONString.quote(site.location))\#(details)\#(valueArgs(call))\#(call.unfinished ? #","unfinished":true"# : "")}"#
        let creator = call.startsTask && call.parentSpanId != 0 ? String(call.parentSpanId, radix: 16) : nil
        if !spawningSpans.isEmpty { processArrows(call, pid: pid, tid: tid) }
        if call.isAsync {
            let category = call.isSpan ? "span" : "async"
            let endTid = process.threads[Int(call.exitThread >= 0 ? call.exitThread : call.thread)].tid
            let id = String(call.spanId, radix: 16)
            let start = micros(call.start)
            event(
                #"{"name":\#(name),"cat":"\#(category)","ph":"b","id":"\#(id)","ts":\#(start),"pid":\#(pid),"tid":\#(tid),"bind_id":"\#(id)","flow_out":true,"args":\#(args)}"#
            )
            event(
                #"{"name":\#(name),"cat":"\#(category)","ph":"e","id":"\#(id)","ts":\#(micros(call.end)),"pid":\#(pid),"tid":\#(endTid)}"#
            )
            if let creator {
                event(
                    #"{"name":"child task","cat":"async","ph":"n","id":"\#(id)","ts":\#(start),"pid":\#(pid),"tid":\#(tid),"bind_id":"\#(creator)","flow_in":true}"#
                )
            }
        } else {
            let start = micros(call.start)
            let ns =
                (offset + process.nanoseconds(call.end)).rounded()
                - (offset + process.nanoseconds(call.start)).rounded()
            let duration = UInt64(max(0, ns))
            let fraction = duration % 1000
            let dur = "\(duration / 1000)." + (fraction < 10 ? "00" : fraction < 100 ? "0" : "") + String(fraction)
            let flow = creator.map { #","bind_id":"\#($0)","flow_in":true"# } ?? ""
            event(
                #"{"name":\#(name),"cat":"function","ph":"X","ts":\#(start),"dur":\#(dur),"pid":\#(pid),"tid":\#(tid)\#(flow),"args":\#(args)}"#
            )
        }
    }

    /// The arrows from a call that started processes of the set (one per process: `<span>-<pid>`), and the one
    /// into this process's first root call.
    func processArrows(_ call: CallEvent, pid: UInt32, tid: UInt32) {
        let exported = SpanIDMath.exported(call.spanId, salt: salt)
        if let children = spawningSpans[exported], arrowsBegun.insert(exported).inserted {
            for child in children {
                event(
                    #"{"name":"process","cat":"process","ph":"s","id":"\#(String(exported, radix: 16))-\#(child)","ts":\#(micros(call.start)),"pid":\#(pid),"tid":\#(tid)}"#
                )
            }
        }
        if let arrow = arrowIn, call.parentSpanId == 0 {
            arrowIn = nil
            event(
                #"{"name":"process","cat":"process","ph":"f","bp":"e","id":"\#(String(arrow, radix: 16))-\#(pid)","ts":\#(micros(call.start)),"pid":\#(pid),"tid":\#(tid)}"#
            )
        }
    }

    public func endProcess(_ process: TraceProcess) {
        for thread in process.threads {
            event(
                #"{"name":"thread_name","ph":"M","pid":\#(process.pid),"tid":\#(thread.tid),"args":{"name":\#(JSONString.quote(thread.name))}}"#
            )
        }
        dropped += process.dropped
        cut += process.file.cut?.records ?? 0
    }

    /// Closes the JSON; call once after reading.
    public func finish() {
        output.append("\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"dropped\":\(dropped),\"cut\":\(cut)}}\n")
    }
}
