import Foundation
import Testing
import TrailTestSupport

/// The viewers of a values trace (issue 41) on a real program, ValueRecordingTests' (built with `--values`, run
/// recording): replay's lines, Chrome's `args`, OTLP's span attributes and `report --by-value`, each against a
/// transcript checked by hand.
@Suite struct ValueViewerTests {
    static let trace: String = {
        let path = Paths.temporaryDirectory("value-viewers") + "/app.trace"
        _ = try! run(
            ValueRecordingTests.binary, [], environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": path],
            check: true)
        return path
    }()

    @Test func replayShowsArgumentsAndResults() throws {
        let output = try run(Paths.trail, ["replay", Self.trace], check: true)
        let note = "\"café " + String(repeating: "x", count: 58) + "\"…"
        let expected = """
            # DURATION     TID     FUNCTION
            <duration> [TID] | App.bump(10, by: -2);
                       [TID] | App.fib(n: 4) {
                       [TID] |   App.fib(n: 3) {
                       [TID] |     App.fib(n: 2) {
            <duration> [TID] |       App.fib(n: 1) = 1;
            <duration> [TID] |       App.fib(n: 0) = 0;
            <duration> [TID] |     } = 1 /* App.fib(n:) */
            <duration> [TID] |     App.fib(n: 1) = 1;
            <duration> [TID] |   } = 2 /* App.fib(n:) */
                       [TID] |   App.fib(n: 2) {
            <duration> [TID] |     App.fib(n: 1) = 1;
            <duration> [TID] |     App.fib(n: 0) = 0;
            <duration> [TID] |   } = 1 /* App.fib(n:) */
            <duration> [TID] | } = 3 /* App.fib(n:) */
            <duration> [TID] | App.describe(0.5, flag: nil, note: \(note), list: <[Int]>) = "0.5 1";
            <duration> [TID] | App.Account.init(name: "ann");
            <duration> [TID] | App.Account.login(user: "ann", password: <redacted>, attempts: 1) = true;
            <duration> [TID] | App.sign(of: -1) = "minus";
            <duration> [TID] | App.parse(header: "bad") throws ParseError.badHeader;
            <duration> [TID] | App.parse(header: "ok") = 1;
                       [TID] | App.refuse() {
                       [TID] |   App.Refusal.description.get {
            <duration> [TID] |     App.fib(n: 1) = 1;
            <duration> [TID] |   } = "refused 1" /* App.Refusal.description.get */
            <duration> [TID] | } throws Refusal: refused 1 /* App.refuse() */
            <duration> [TID] | App.total() = 2;
            <duration> [TID] | App.tail(of: <[Int]>) = <ArraySlice<Int>>;

            """
        let text = Transcript.maskReplay(output.stdout)
        #expect(text == expected, "\(Transcript.firstDifference(text, expected) ?? "")")
        #expect(output.stderr.isEmpty, "\(output.stderr)")
    }

    @Test func chromeArgsCarryThem() throws {
        let output = try run(Paths.trail, ["export", "--chrome", Self.trace], check: true)
        let json = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any]
        let events = json?["traceEvents"] as? [[String: Any]] ?? []
        let shown = events.filter { $0["ph"] as? String == "X" }.compactMap { event -> String? in
            guard let name = event["name"] as? String, let args = event["args"] as? [String: Any] else { return nil }
            return name + " "
                + ["arguments", "result", "thrown"].map { "\($0)=\(args[$0] as? String ?? "-")" }.joined(separator: " ")
        }
        for line in [
            "App.bump(_:by:) arguments=10, by: -2 result=- thrown=-",
            "App.fib(n:) arguments=n: 4 result=3 thrown=-",
            "App.parse(header:) arguments=header: \"bad\" result=- thrown=ParseError.badHeader",
            "App.total() arguments=- result=2 thrown=-",
            "App.Account.login(user:password:attempts:) arguments=user: \"ann\", password: <redacted>, attempts: 1 result=true thrown=-",
            "App.sign(of:) arguments=of: -1 result=\"minus\" thrown=-",
        ] {
            #expect(shown.contains(line), "\(line) in \(shown)")
        }
        #expect(shown.count == 21)
    }

    @Test func otlpSpanAttributesCarryThem() throws {
        let file = Paths.temporaryDirectory("value-viewers-otlp") + "/spans.json"
        try run(Paths.trail, ["export", "--otlp", "-o", file, Self.trace], check: true)
        let shown = try otlpSpans(inFile: file).map { span -> String in
            let attributes = span["attributes"] as? [[String: Any]] ?? []
            let values = attributes.compactMap { attribute -> String? in
                guard let key = attribute["key"] as? String,
                    key.hasPrefix("code.function.argument.")
                        || key == "code.function.return_value" || key == "code.function.thrown"
                else { return nil }
                let value = (attribute["value"] as? [String: Any])?["stringValue"] as? String ?? "?"
                return key.replacingOccurrences(of: "code.function.", with: "") + "=" + value
            }
            return (span["name"] as? String ?? "?") + " " + values.joined(separator: " ")
        }
        for line in [
            "App.bump(_:by:) argument.value=10 argument.step=-2",
            "App.fib(n:) argument.n=4 return_value=3",
            "App.Account.login(user:password:attempts:) argument.user=\"ann\" argument.password=<redacted> argument.attempts=1 return_value=true",
            "App.sign(of:) argument.n=-1 return_value=\"minus\"",
            "App.refuse() thrown=Refusal: refused 1",
        ] {
            #expect(shown.contains(line), "\(line) in \(shown)")
        }
    }

    @Test func reportByValueGroupsOneFunctionsCalls() throws {
        let output = try run(Paths.trail, ["report", "--by-value", "fib", Self.trace], check: true)
        let rows = output.stdout.split(separator: "\n").map {
            $0.replacingOccurrences(of: #"\d+\.\d{3} (ns|us|ms| s)"#, with: "T", options: .regularExpression)
        }
        #expect(
            rows.prefix(3) == [
                "  Total time       Calls     Average     Maximum  Call",
                "  ==========  ==========  ==========  ==========  ====================",
                "    T           1    T    T  App.fib(n: 4)",
            ])
        // The rest by total time, which varies: each argument once, with its count.
        #expect(
            Set(rows.dropFirst(3)) == [
                "    T           1    T    T  App.fib(n: 3)",
                "    T           2    T    T  App.fib(n: 2)",
                "    T           4    T    T  App.fib(n: 1)",
                "    T           2    T    T  App.fib(n: 0)",
            ])
    }
}
