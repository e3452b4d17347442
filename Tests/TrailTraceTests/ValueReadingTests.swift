import Foundation
import Testing
import TrailFormat
import TrailTestSupport
import TrailTrace

/// Values on hand-made v2 files (Docs/trace-format.md, "Values"): attached to their call, shown by replay, and a
/// cut or malformed value record skipped with a note, never shown as a wrong value.
@Suite struct ValueReadingTests {
    static let load: UInt64 = 0x1000, fib: UInt64 = 0x1100
    static let path: UInt64 = 0x2000, password: UInt64 = 0x2100, note: UInt64 = 0x2200, n: UInt64 = 0x2300
    static let result: UInt64 = 0x2400

    static func value(
        _ descriptor: UInt64, _ tag: ValueTag, role: ValueRole = .argument, data: UInt64 = 0, _ payload: UInt64
    ) -> (UInt64, UInt64) {
        let word =
            descriptor | UInt64(tag.rawValue) << ValueRecord.tagShift | UInt64(role.rawValue) << ValueRecord.roleShift
            | data << ValueRecord.dataShift | UInt64(TraceRecord.Kind.aux.rawValue) << 60
        return (payload, word)
    }

    /// A DATA record holding up to 14 bytes.
    static func data(_ bytes: [UInt8]) -> (UInt64, UInt64) {
        let padded = bytes + [UInt8](repeating: 0, count: 14 - bytes.count)
        let time = padded[0 ..< 8].enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * $1.offset) }
        let low = padded[8 ..< 14].enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * $1.offset) }
        return (time, low | UInt64(TraceRecord.Kind.aux.rawValue) << 60)
    }

    /// `App.load("a\xffb", password: <redacted>, note: <cut>)` calling `App.fib(n: 30) = 832040`, returning 7; then
    /// a second load whose only argument's DATA record comes without its VALUE record.
    static func trace(cutNote: Bool) throws -> String {
        var builder = TraceBuilder()
        builder.info(exe: "/usr/bin/app")
        builder.name(load, "App.load(_:password:note:) @ App/main.swift:3")
        builder.name(fib, "App.fib(n:) @ App/main.swift:1")
        builder.name(path, "_ path: String")
        builder.name(password, "password: String")
        builder.name(note, "note: String")
        builder.name(n, "n: Int")
        builder.name(result, "-> Int")
        let noteRecords =
            cutNote
            // Says 20 bytes in 2 DATA records; the second is missing (fib's ENTER comes first).
            ? [value(note, .string, data: 2, 20 << 32 | 20), data(Array("0123456789abcd".utf8))]
            : [value(note, .string, data: 1, 2 << 32 | 2), data(Array("ok".utf8))]
        builder.records(
            slot: 0, tid: 7, position: 0,
            [
                (100, TraceBuilder.word(.enter, load)),
                value(path, .string, data: 1, 3 << 32 | 3), data([0x61, 0xFF, 0x62]),
                value(password, .redacted, 0),
            ] + noteRecords + [
                (200, TraceBuilder.word(.enter, fib, depth: 1)),
                value(n, .int64, 30),
                value(result, .int64, role: .result, 832_040),
                (300, TraceBuilder.word(.exit, fib, depth: 1)),
                value(result, .int64, role: .result, 7),
                (400, TraceBuilder.word(.exit, load)),
                (500, TraceBuilder.word(.enter, load)),
                data(Array("stray".utf8)),
                (600, TraceBuilder.word(.exit, load)),
            ])
        builder.end(records: 20)
        let file = Paths.temporaryDirectory("value-reading") + "/values.trace"
        try builder.write(to: file)
        return file
    }

    static func replay(_ path: String) throws -> (text: String, file: TraceFile) {
        let output = TextOutput()
        var replay = Replay(ReplayOptions(), output: output)
        let file = try TraceFile(path: path)
        CallStream().stream([file], into: &replay)
        return (Transcript.maskReplay(output.text), file)
    }

    /// Values go in the name's last parentheses; a setter's name has none and gets them.
    @Test func callNamesTakeTheirArguments() {
        func argument(_ label: String, _ text: String) -> CallValue {
            CallValue(role: .argument, label: label, name: label, type: "Int", text: text)
        }
        let result = CallValue(role: .result, label: "", name: "", type: "Int", text: "5")
        #expect(CallValue.callName("App.fib(n:)", [argument("n", "30"), result]) == "App.fib(n: 30)")
        #expect(CallValue.callName("App.Grid.subscript(_:).get", [argument("_", "2")]) == "App.Grid.subscript(2).get")
        #expect(
            CallValue.callName("App.Grid.subscript(_:).set", [argument("_", "2"), argument("newValue", "7")])
                == "App.Grid.subscript(2, newValue: 7).set")
        #expect(CallValue.callName("App.count.set", [argument("newValue", "3")]) == "App.count.set(newValue: 3)")
        #expect(CallValue.callName("App.count.get", [result]) == "App.count.get")
    }

    @Test func valuesShowOnTheirCalls() throws {
        let (text, file) = try Self.replay(try Self.trace(cutNote: false))
        #expect(
            text == """
                # DURATION     TID     FUNCTION
                           [TID] | App.load("a\\xffb", password: <redacted>, note: "ok") {
                <duration> [TID] |   App.fib(n: 30) = 832040;
                <duration> [TID] | } = 7 /* App.load(_:password:note:) */
                <duration> [TID] | App.load(_:password:note:);

                """)
        // The stray DATA record of the second load.
        #expect(file.skippedValues.records == 1)
    }

    @Test func aCutValueIsSkippedWithANote() throws {
        let (text, file) = try Self.replay(try Self.trace(cutNote: true))
        // The note's value is not shown, cut or wrong: the call shows the arguments that were whole.
        #expect(
            text == """
                # DURATION     TID     FUNCTION
                           [TID] | App.load("a\\xffb", password: <redacted>) {
                <duration> [TID] |   App.fib(n: 30) = 832040;
                <duration> [TID] | } = 7 /* App.load(_:password:note:) */
                <duration> [TID] | App.load(_:password:note:);

                """)
        #expect(file.skippedValues.records == 3)
        #expect(file.skippedValues.firstReason == "a string value cut short (1 of 2 data records)")
        // trail says so on stderr, with the trace's other gaps.
        let path = try Self.trace(cutNote: true)
        let output = try run(Paths.trail, ["replay", path], check: true)
        #expect(
            output.stderr.contains(
                "\(path): 3 value records were skipped, cut or malformed (a string value cut short (1 of 2 data records))"
            ), "\(output.stderr)")
    }

    /// A trace without values reads as before: nothing is noted, nothing kept.
    @Test func strayAuxWithoutValuesIsNotNoted() throws {
        var builder = TraceBuilder()
        builder.info(exe: "/usr/bin/app")
        builder.name(Self.fib, "App.fib(n:) @ App/main.swift:1")
        builder.records(
            slot: 0, tid: 7, position: 0,
            [(100, TraceBuilder.word(.enter, Self.fib)), Self.data([1]), (200, TraceBuilder.word(.exit, Self.fib))])
        let path = Paths.temporaryDirectory("value-reading") + "/plain.trace"
        try builder.write(to: path)
        let (text, file) = try Self.replay(path)
        #expect(text.hasSuffix("[TID] | App.fib(n:);\n"))
        #expect(file.skippedValues.records == 0)
    }
}

extension ValueReadingTests {
    /// Role 2 (thrown) is reserved in the format and not yet written by the runtime: a reader that meets it shows
    /// `} throws ...` in place of a result, so the viewers are ready when the runtime records throws.
    @Test func aThrownValueShowsAsAThrow() throws {
        var builder = TraceBuilder()
        builder.info(exe: "/usr/bin/app")
        builder.name(Self.load, "App.parse(_:) @ App/main.swift:3")
        builder.name(Self.path, "_ path: String")
        builder.name(Self.result, "-> ParseError")
        builder.records(
            slot: 0, tid: 7, position: 0,
            [
                (100, TraceBuilder.word(.enter, Self.load)),
                Self.value(Self.path, .string, data: 1, 1 << 32 | 1), Self.data(Array("x".utf8)),
                (200, TraceBuilder.word(.enter, Self.fib, depth: 1)),
                (300, TraceBuilder.word(.exit, Self.fib, depth: 1)),
                Self.value(Self.result, .string, role: .thrown, data: 2, 20 << 32 | 20),
                Self.data(Array("ParseError.bad".utf8)), Self.data(Array("Header".utf8)),
                (400, TraceBuilder.word(.exit, Self.load)),
            ])
        let path = Paths.temporaryDirectory("value-reading") + "/thrown.trace"
        try builder.write(to: path)
        let (text, file) = try Self.replay(path)
        #expect(text.hasSuffix("[TID] | } throws ParseError.badHeader /* App.parse(_:) */\n"), "\(text)")
        #expect(text.contains("[TID] | App.parse(\"x\") {"), "\(text)")
        #expect(file.skippedValues.records == 0)
    }
}

extension ValueReadingTests {
    /// A trace that ends inside a value (the process died while writing it): the value is skipped with a note, and
    /// its call shows the arguments that were whole.
    @Test func aValueCutByTheEndOfTheTraceIsSkipped() throws {
        var builder = TraceBuilder()
        builder.info(exe: "/usr/bin/app")
        builder.name(Self.load, "App.load(_:password:note:) @ App/main.swift:3")
        builder.name(Self.fib, "App.fib(n:) @ App/main.swift:1")
        builder.name(Self.n, "n: Int")
        builder.name(Self.note, "note: String")
        builder.records(
            slot: 0, tid: 7, position: 0,
            [
                (100, TraceBuilder.word(.enter, Self.load)),
                (200, TraceBuilder.word(.enter, Self.fib, depth: 1)), Self.value(Self.n, .int64, 5),
                Self.value(Self.note, .string, data: 2, 20 << 32 | 20), Self.data(Array("0123456789abcd".utf8)),
            ])
        let path = Paths.temporaryDirectory("value-reading") + "/cut.trace"
        try builder.write(to: path)
        let (text, file) = try Self.replay(path)
        #expect(text.contains("[TID] |   App.fib(n: 5); (unfinished)"), "\(text)")
        #expect(file.skippedValues.records == 2)
        #expect(file.skippedValues.firstReason == "a string value cut short (1 of 2 data records)")
    }
}

extension ValueReadingTests {
    /// A result belongs to the exit right after it, EXIT or ASYNC_EXIT: an async call's, ending on a thread where a
    /// synchronous call is open (a run loop's), is not that call's; and one whose exit never came (a cut, a wrapped
    /// ring) is shown as no call's result.
    @Test func aResultIsTheCallsWhoseExitFollowsIt() throws {
        var builder = TraceBuilder()
        builder.info(exe: "/usr/bin/app")
        builder.name(Self.load, "App.runLoop() @ App/main.swift:3")
        builder.name(Self.fib, "App.fetch(n:) @ App/main.swift:1")
        builder.name(Self.n, "n: Int")
        builder.name(Self.result, "-> Int")
        let token: UInt64 = 1 << 40 | 1
        builder.records(
            slot: 0, tid: 7, position: 0,
            [
                (100, TraceBuilder.word(.enter, Self.load)),
                // An async call entered inside it: its argument follows the entry's two AUX records.
                (200, TraceBuilder.word(.asyncEnter, Self.fib, depth: 1)), (token, TraceBuilder.word(.aux, 0x77)),
                (0, TraceBuilder.word(.aux, 0)), Self.value(Self.n, .int64, 12),
                Self.value(Self.result, .int64, role: .result, 144),
                (300, TraceBuilder.word(.asyncExit, Self.fib, depth: 1)), (token, TraceBuilder.word(.aux, 0x77)),
                // A result whose EXIT was lost: the runLoop's own exit comes later, after another record.
                Self.value(Self.result, .int64, role: .result, 99),
                (400, TraceBuilder.word(.enter, Self.fib, depth: 1)),
                (450, TraceBuilder.word(.exit, Self.fib, depth: 1)),
                (500, TraceBuilder.word(.exit, Self.load)),
            ])
        builder.end(records: 12)
        let path = Paths.temporaryDirectory("value-reading") + "/async-result.trace"
        try builder.write(to: path)
        let (text, _) = try Self.replay(path)
        #expect(text.contains("App.fetch(n: 12) = 144; [async]"), "\(text)")
        #expect(!text.contains("99"), "\(text)")
        #expect(text.contains("} /* App.runLoop() */"), "\(text)")
    }
}
