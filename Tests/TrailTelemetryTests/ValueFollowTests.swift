import Foundation
import Testing
import TrailTelemetry
import TrailTestSupport

/// `trail export --otlp --follow` (SpanFollow, in process) on a trace of a build with values: each span carries
/// its call's arguments and result as `export --otlp` does (Docs/opentelemetry.md, "Values").
@Suite struct ValueFollowTests {
    static let program = """
        func fib(n: Int) -> Int { n < 2 ? n : fib(n: n - 1) + fib(n: n - 2) }
        func open(_ path: String, token: String) -> Bool { !path.isEmpty && !token.isEmpty }
        print(fib(n: 2), open("/etc/app.conf", token: "s3cr3t"))

        """

    @Test func followedSpansCarryTheValues() throws {
        let directory = Paths.temporaryDirectory("value-follow")
        let app = try ValuesProgram.build(Self.program, in: directory)
        let folder = directory + "/traces"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try run(
            app, [], environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": folder + "/app.trace"],
            check: true)

        let sink = CapturedRequests()
        var follow = try SpanFollow(
            output: FollowOutput(sink: sink, batch: 512, name: "test", say: { _ in }),
            roots: [folder], cursorPath: SpanFollow.defaultCursor([folder]), export: TraceExport())
        follow.timing.flushInterval = 0
        for _ in 0 ..< 3 { try follow.step() }
        try follow.flush()
        let shown = try sink.objects().flatMap(otlpSpans).map { span -> String in
            let values = (span["attributes"] as? [[String: Any]] ?? []).compactMap { attribute -> String? in
                guard let key = attribute["key"] as? String, key.hasPrefix("code.function.a") || key.hasSuffix("_value")
                else { return nil }
                return key + "=" + ((attribute["value"] as? [String: Any])?["stringValue"] as? String ?? "?")
            }
            return (span["name"] as? String ?? "?") + " " + values.joined(separator: " ")
        }
        #expect(
            shown.sorted() == [
                "App.fib(n:) code.function.argument.n=0 code.function.return_value=0",
                "App.fib(n:) code.function.argument.n=1 code.function.return_value=1",
                "App.fib(n:) code.function.argument.n=2 code.function.return_value=1",
                "App.open(_:token:) code.function.argument.path=\"/etc/app.conf\" code.function.argument.token=<redacted> "
                    + "code.function.return_value=true",
            ])
    }
}
