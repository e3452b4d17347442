import Foundation
import Tracing
import TrailTracing

/// `bench-spans COUNT trail|noop`: what a `withSpan` with two attributes costs, with TrailTracer (recording
/// when TRAIL_TRACE=record) or swift-distributed-tracing's no-op tracer as the floor. Prints ns per span.
enum SpanBench {
    static func run(_ arguments: [String]) {
        guard arguments.count == 3, let count = Int(arguments[1]), ["trail", "noop"].contains(arguments[2]) else {
            print("usage: Server bench-spans COUNT trail|noop")
            exit(2)
        }
        if arguments[2] == "trail" { InstrumentationSystem.bootstrap(TrailTracer()) }
        let start = DispatchTime.now().uptimeNanoseconds
        for index in 0 ..< count {
            withSpan("GET /items") { span in
                span.attributes["http.request.method"] = "GET"
                span.attributes["item"] = index
            }
        }
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        print(String(format: "%.0f ns per span", Double(elapsed) / Double(count)))
    }
}
