import Foundation
import TrailFormat

/// The Chrome trace event format (JSON object form), which Perfetto and chrome://tracing load.
/// Synchronous calls are complete ("X") events on their thread; async calls are async ("b"/"e") events keyed
/// by call, since they may start and end on different threads.
public enum ChromeTrace {
    public static func render(_ tree: CallTree, trace: TraceFile) -> String {
        let pid = Int(trace.pid)
        var events: [String] = []
        let process = (trace.info["exe"] ?? "process").split(separator: "/").last.map(String.init) ?? "process"
        events.append(#"{"name":"process_name","ph":"M","pid":\#(pid),"tid":0,"args":{"name":\#(JSONString.quote(process))}}"#)
        for thread in tree.threads {
            events.append(#"{"name":"thread_name","ph":"M","pid":\#(pid),"tid":\#(thread.tid),"args":{"name":\#(JSONString.quote(thread.name))}}"#)
        }
        // Rounded to whole nanoseconds before the spans are cut, so children never poke out of parents.
        func micros(_ nanoseconds: Double) -> String { String(format: "%.3f", nanoseconds.rounded() / 1000) }
        tree.walk { index in
            let call = tree.calls[index]
            let site = tree.sites[call.site]
            let tid = tree.threads[call.thread].tid
            let end = (call.end ?? tree.endTime).rounded()
            let start = call.start.rounded()
            let args = #"{"location":\#(JSONString.quote(site.location))\#(call.end == nil ? #","unfinished":true"# : "")}"#
            if call.isAsync {
                let endTid = tree.threads[call.exitThread ?? call.thread].tid
                events.append(#"{"name":\#(JSONString.quote(site.name)),"cat":"async","ph":"b","id":"\#(index)","ts":\#(micros(start)),"pid":\#(pid),"tid":\#(tid),"args":\#(args)}"#)
                events.append(#"{"name":\#(JSONString.quote(site.name)),"cat":"async","ph":"e","id":"\#(index)","ts":\#(micros(end)),"pid":\#(pid),"tid":\#(endTid)}"#)
            } else {
                events.append(#"{"name":\#(JSONString.quote(site.name)),"cat":"function","ph":"X","ts":\#(micros(start)),"dur":\#(micros(end - start)),"pid":\#(pid),"tid":\#(tid),"args":\#(args)}"#)
            }
        }
        return "{\"traceEvents\":[\n" + events.joined(separator: ",\n") + "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"dropped\":\(tree.dropped)}}\n"
    }
}
