import Foundation

/// The Chrome trace event format (JSON object form), which Perfetto and chrome://tracing load.
/// Synchronous calls are complete ("X") events on their thread; async calls are async ("b"/"e") events keyed
/// by call, since they may start and end on different threads.
public enum ChromeTrace {
    public static func render(_ tree: CallTree, trace: TraceFile) -> String {
        let pid = Int(trace.pid)
        var events: [String] = []
        let process = (trace.info["exe"] ?? "process").split(separator: "/").last.map(String.init) ?? "process"
        events.append(#"{"name":"process_name","ph":"M","pid":\#(pid),"tid":0,"args":{"name":\#(json(process))}}"#)
        for thread in tree.threads {
            events.append(#"{"name":"thread_name","ph":"M","pid":\#(pid),"tid":\#(thread.tid),"args":{"name":\#(json(thread.name))}}"#)
        }
        // Rounded to whole nanoseconds before the spans are cut, so children never poke out of parents.
        func micros(_ nanoseconds: Double) -> String { String(format: "%.3f", nanoseconds.rounded() / 1000) }
        tree.walk { index in
            let call = tree.calls[index]
            let site = tree.sites[call.site]
            let tid = tree.threads[call.thread].tid
            let end = (call.end ?? tree.endTime).rounded()
            let start = call.start.rounded()
            let args = #"{"location":\#(json(site.location))\#(call.end == nil ? #","unfinished":true"# : "")}"#
            if call.isAsync {
                let endTid = tree.threads[call.exitThread ?? call.thread].tid
                events.append(#"{"name":\#(json(site.name)),"cat":"async","ph":"b","id":"\#(index)","ts":\#(micros(start)),"pid":\#(pid),"tid":\#(tid),"args":\#(args)}"#)
                events.append(#"{"name":\#(json(site.name)),"cat":"async","ph":"e","id":"\#(index)","ts":\#(micros(end)),"pid":\#(pid),"tid":\#(endTid)}"#)
            } else {
                events.append(#"{"name":\#(json(site.name)),"cat":"function","ph":"X","ts":\#(micros(start)),"dur":\#(micros(end - start)),"pid":\#(pid),"tid":\#(tid),"args":\#(args)}"#)
            }
        }
        return "{\"traceEvents\":[\n" + events.joined(separator: ",\n") + "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"dropped\":\(tree.dropped)}}\n"
    }

    static func json(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
