import Foundation
import Testing
import TrailFormat
import TrailTestSupport

/// What a build with values records (issue 41): a program instrumented with `--values`, run recording, its trace
/// walked by TraceDump and its VALUE records decoded by TrailFormat: each call's arguments after its ENTER, its
/// result before its EXIT, as the settings choose, redact and cap them.
@Suite struct ValueRecordingTests {
    static let program = """
        struct Account {
            var name: String
            init(name: String) { self.name = name }
            func login(user: String, password: String, attempts: Int) -> Bool { attempts < 3 && !password.isEmpty }
        }
        func fib(n: Int) -> Int { n < 2 ? n : fib(n: n - 1) + fib(n: n - 2) }
        func describe(_ ratio: Double, flag: Bool?, note: String?, list: [Int]) -> String { "\\(ratio) \\(list.count)" }
        func bump(_ value: inout Int, by step: Int8) {
            value += Int(step)
        }
        func sign(of n: Int) -> String {
            if n < 0 { return "minus" }
            return "plus"
        }
        enum ParseError: Error { case badHeader }
        struct Refusal: Error, CustomStringConvertible { var description: String { "refused \\(fib(n: 1))" } }
        func parse(header: String) throws -> Int {
            guard header == "ok" else { throw ParseError.badHeader }
            return 1
        }
        func refuse() throws(Refusal) {
            throw Refusal()
        }
        func total() -> Int {
            let items = [1, 2]
            return items.count
        }
        func tail(of items: [Int]) -> ArraySlice<Int> { items.dropFirst() }
        var number = 10
        bump(&number, by: -2)
        print(fib(n: 4), describe(0.5, flag: nil, note: "caf\\u{e9} " + String(repeating: "x", count: 80), list: [1]),
              Account(name: "ann").login(user: "ann", password: "hunter2", attempts: 1), number, sign(of: -1))
        print((try? parse(header: "bad")) == nil, try parse(header: "ok"), (try? refuse()) == nil, total(), tail(of: [1, 2]))

        """

    static let expectedOutput = "3 0.5 1 true 8 minus\ntrue 1 true 2 [2]\n"

    static let binary: String = {
        let directory = Paths.temporaryDirectory("value-recording")
        try! Data(program.utf8).write(to: URL(fileURLWithPath: directory + "/main.swift"))
        try! run(
            Paths.trail, ["instrument", "--values", "--module", "App", "--in-place", directory + "/main.swift"],
            check: true)
        let build = Paths.buildDirectory
        try! run(
            "swiftc",
            [
                "-module-name", "App", "-swift-version", "6", "-Onone", "-warnings-as-errors", "-o",
                directory + "/app", directory + "/main.swift", "-I", build + "/Modules", "-I",
                Paths.packageRoot + "/Sources/CTrailHooks/include", "-L", build, "-lTrailDynamic", "-Xlinker",
                "-rpath", "-Xlinker", build,
            ], check: true)
        return directory + "/app"
    }()

    /// Per call, in order: `name(arguments) = result`, values as viewers show them.
    static func calls(_ environment: [String: String] = [:]) throws -> [String] {
        let trace = Paths.temporaryDirectory("value-recording-trace") + "/app.trace"
        let output = try run(
            binary, [], environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": trace].merging(environment) { $1 },
            check: true)
        #expect(output.stdout == Self.expectedOutput)
        let dump = try TraceDump(path: trace)
        #expect(dump.problems.isEmpty, "\(dump.problems.prefix(3))")
        var calls: [String] = []
        var open: [Int] = []
        var closed: Set<Int> = []
        let records = dump.allRecords
        var index = 0
        while index < records.count {
            let record = records[index]
            if record.kind == .enter {
                let name = dump.names[record.address].map { String($0.prefix { $0 != " " }) } ?? "?"
                open.append(calls.count)
                calls.append(name + "(")
            } else if record.kind == .exit, let last = open.popLast() {
                if closed.insert(last).inserted { calls[last] += ")" }
            } else if ValueRecord.isValue(record) {
                guard case .value(let value, let count) = ValueRecord.decode(records, at: index), let last = open.last
                else {
                    Issue.record("a value record that does not decode at \(index)")
                    break
                }
                let descriptor = dump.names[value.descriptor] ?? "?"
                let text = ValueText.format(value, type: ValueText.type(ofDescriptor: descriptor))
                if value.role == .thrown {
                    closed.insert(last)
                    calls[last] += ") throws " + ValueText.escaped(value.bytes, quoted: false)
                } else if value.role == .result {
                    closed.insert(last)
                    calls[last] += ") = " + text
                } else {
                    calls[last] +=
                        (calls[last].hasSuffix("(") ? "" : ", ") + descriptor.prefix { $0 != ":" } + ": " + text
                }
                index += count
                continue
            }
            index += 1
        }
        return calls
    }

    @Test func argumentsAndResultsAsRecorded() throws {
        let note = "\"café " + String(repeating: "x", count: 58) + "\"…"  // 64 bytes kept of 86
        #expect(
            try Self.calls() == [
                "App.bump(_:by:)(_ value: 10, by step: -2)",
                "App.fib(n:)(n: 4) = 3", "App.fib(n:)(n: 3) = 2", "App.fib(n:)(n: 2) = 1", "App.fib(n:)(n: 1) = 1",
                "App.fib(n:)(n: 0) = 0", "App.fib(n:)(n: 1) = 1", "App.fib(n:)(n: 2) = 1", "App.fib(n:)(n: 1) = 1",
                "App.fib(n:)(n: 0) = 0",
                "App.describe(_:flag:note:list:)(_ ratio: 0.5, flag: nil, note: \(note), list: <[Int]>) = \"0.5 1\"",
                "App.Account.init(name:)(name: \"ann\")",
                "App.Account.login(user:password:attempts:)(user: \"ann\", password: <redacted>, attempts: 1) = true",
                "App.sign(of:)(of n: -1) = \"minus\"",
                "App.parse(header:)(header: \"bad\") throws ParseError.badHeader",
                "App.parse(header:)(header: \"ok\") = 1",
                // The error's description runs traced code of its own, inside the call that threw.
                "App.refuse()() throws Refusal: refused 1", "App.Refusal.description.get() = \"refused 1\"",
                "App.fib(n:)(n: 1) = 1",
                "App.total()() = 2",
                "App.tail(of:)(of items: <[Int]>) = <ArraySlice<Int>>",
            ])
    }

    @Test func settingsChooseRedactAndCap() throws {
        let chosen = try Self.calls(["TRAIL_VALUES_FILTER": "*.login*,App.bump*"])
        #expect(chosen.contains("App.fib(n:)()"))
        #expect(chosen.first == "App.bump(_:by:)(_ value: 10, by step: -2)")
        let redacted = try Self.calls(["TRAIL_VALUES_REDACT": "user, name", "TRAIL_VALUES_STRING_MAX": "2"])
        #expect(redacted.contains("App.Account.init(name:)(name: <redacted>)"))
        #expect(
            redacted.contains(
                "App.Account.login(user:password:attempts:)(user: <redacted>, password: <redacted>, attempts: 1) = true"
            ))
        // Types named by TRAIL_VALUES_DESCRIBE are recorded by their description, arguments and results alike.
        let described = try Self.calls(["TRAIL_VALUES_DESCRIBE": "[Int], ArraySlice<*>"])
        #expect(described.contains("App.tail(of:)(of items: [1, 2]) = [2]"))
        #expect(described.contains { $0.hasPrefix("App.describe(_:flag:note:list:)(") && $0.contains("list: [1])") })
        // Never a character cut in two: "é" takes 2 bytes, so 4 bytes keep "caf".
        let cut = try Self.calls(["TRAIL_VALUES_STRING_MAX": "4"])
        #expect(cut.contains { $0.contains("note: \"caf\"…") })
    }

    @Test func tracingOffRunsTheSame() throws {
        #expect(try run(Self.binary, [], check: true).stdout == Self.expectedOutput)
    }

    /// Log mode's lines: the entry with the arguments in place of the labels, the exit with the result.
    @Test func logModeLinesCarryTheValues() throws {
        let output = try run(Self.binary, [], environment: ["TRAIL_TRACE": "1"], check: true)
        #expect(output.stdout == Self.expectedOutput)
        // "[trail TID]   -> App.fib(n: 4)  (App/main.swift:6)  trace_id=..." -> "-> App.fib(n: 4)"
        let lines = output.stderr.split(separator: "\n").map { line in
            String(line.split(separator: "]", maxSplits: 1).last!.drop { $0 == " " }).components(separatedBy: "  ")[0]
        }
        let note = "\"café " + String(repeating: "x", count: 58) + "\"…"
        let expected = [
            "-> App.bump(10, by: -2)", "<- App.bump(_:by:)", "-> App.fib(n: 4)", "-> App.fib(n: 3)",
            "<- App.fib(n:) = 2", "-> App.describe(0.5, flag: nil, note: \(note), list: <[Int]>)",
            "<- App.describe(_:flag:note:list:) = \"0.5 1\"", "-> App.Account.init(name: \"ann\")",
            "-> App.Account.login(user: \"ann\", password: <redacted>, attempts: 1)",
            "<- App.Account.login(user:password:attempts:) = true", "-> App.sign(of: -1)",
            "<- App.sign(of:) = \"minus\"", "-> App.parse(header: \"bad\")",
            "<- App.parse(header:) throws ParseError.badHeader", "<- App.refuse() throws Refusal: refused 1",
            "<- App.total() = 2",
        ]
        for line in expected { #expect(lines.contains(line), "\(line) in \(lines)") }
        // A function TRAIL_VALUES_FILTER leaves out logs as without values.
        let filtered = try run(
            Self.binary, [], environment: ["TRAIL_TRACE": "1", "TRAIL_VALUES_FILTER": "App.bump*"], check: true)
        #expect(filtered.stderr.contains("-> App.fib(n:)  ("))
        #expect(filtered.stderr.contains("-> App.bump(10, by: -2)  ("))
    }
}
