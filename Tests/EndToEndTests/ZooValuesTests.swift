import Foundation
import Testing
import TrailTestSupport

/// The zoo instrumented with values (`--values`, issue 41): every body form and every kind of parameter
/// (Arguments.swift) compiles under Swift 5 and 6 with warnings as errors, and prints what the plain zoo prints,
/// untraced, recording and logging.
@Suite struct ZooValuesTests {
    static let built: (plain: String, traced5: String, traced6: String) = {
        let directory = Paths.temporaryDirectory("zoo-values")
        let instrumented = directory + "/src"
        try! run(
            Paths.trail,
            ["instrument", "--values", "--closures", "--module", "Zoo", "--output", instrumented, ZooTests.zoo],
            check: true)
        try! ZooTests.compileLogModule(into: directory)
        return (
            try! ZooTests.compile(ZooTests.zoo, traced: false, into: directory, swiftVersion: "6"),
            try! ZooTests.compile(instrumented, traced: true, into: directory, swiftVersion: "5"),
            try! ZooTests.compile(instrumented, traced: true, into: directory, swiftVersion: "6")
        )
    }()

    @Test func insertsTheArgumentsAndResults() throws {
        let built = Self.built
        let source = Transcript.read((built.traced6 as NSString).deletingLastPathComponent + "/src/Arguments.swift")
        #expect(source.contains(#"Trail.value("_ value: Int", value); Trail.value("by step: Int", step)"#))
        #expect(
            source.contains(
                #"@ Zoo/Arguments.swift:43", 2) { Trail.value("_ flag: Bool", flag); Trail.unread("_ message: () -> String") }"#
            ))
        #expect(source.contains(#"~>| Trail.TypedValueExit<Double>("-> Double")"#))
        #expect(source.contains(#"{ Trail.unread("_ step: Step"); Trail.value("from start: Int", start) }"#))
        #expect(source.contains(#"Trail.value("extension: String", `extension`); Trail.value("in: Int", `in`)"#))
        // Pointers by their written type, and never through `Trail.value`, which an array would convert to.
        #expect(
            source.contains(
                #"{ unsafe Trail.pointer("_ bytes: UnsafePointer<UInt8>", bytes); "#
                    + #"unsafe Trail.pointer("_ mutable: UnsafeMutablePointer<UInt8>?", mutable); "#
                    + #"unsafe Trail.pointer("_ raw: Swift.UnsafeRawPointer!", raw); "#
                    + #"unsafe Trail.pointer("_ none: UnsafeMutableRawPointer?", none) }"#))
        // A pointer result is marked `unsafe` where it meets the exit, as `-strict-memory-safety` requires.
        #expect(source.contains(#"/*<trail*/return /*trail>*//*<trail*/unsafe /*trail>*/bytes + 1/*<trail*/ ~>| "#))
    }

    @Test func printsWhatThePlainZooPrints() throws {
        let built = Self.built
        let plain = try run(built.plain, ["arguments"], check: true).stdout
        #expect(plain.contains("arguments: -3 4 5 6 1.5 2.25 true é str sub true"))
        let trace = Paths.temporaryDirectory("zoo-values-trace") + "/zoo.trace"
        let described = Paths.temporaryDirectory("zoo-values-described") + "/zoo.trace"
        for binary in [built.traced5, built.traced6] {
            #expect(try run(binary, ["arguments"], check: true).stdout == plain)
            let recording = ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": trace]
            #expect(try run(binary, ["arguments"], environment: recording, check: true).stdout == plain)
            #expect(try run(binary, ["arguments"], environment: ["TRAIL_TRACE": "1"], check: true).stdout == plain)
            // Every copyable value described: the descriptions run the zoo's own code, which changes nothing.
            let describing = ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": described, "TRAIL_VALUES_DESCRIBE": "*"]
            #expect(try run(binary, ["arguments"], environment: describing, check: true).stdout == plain)
        }
        let replay = try run(Paths.trail, ["replay", described], check: true).stdout
        #expect(replay.contains(#"Zoo.Arguments.collections([7, 8], ["k": 1], [3]) = 4;"#), "\(replay.prefix(3000))")
        // Results of functions named like secrets are never passed, though every value is described here.
        #expect(
            replay.contains(#"Zoo.Arguments.secret(user: "u", password: <redacted>, apiKey: <redacted>) = <redacted>;"#)
        )
        #expect(replay.contains(#"Zoo.Arguments.sessionToken(for: "u") = <redacted>;"#), "\(replay.prefix(3000))")
        #expect(!replay.contains("hunter2") && !replay.contains("t-u"))
        #expect(
            replay.contains("Zoo.Arguments.wide(12345678901234567890123, nil, half: 0.5) = 24691357802469135780246;"),
            "\(replay.prefix(3000))")
        // Pointers given and returned show their addresses: the second byte's is one past the first's.
        let pointers = try #require(
            replay.firstMatch(of: #/Zoo\.Arguments\.pointers\(0x(\w+), 0x(\w+), 0x(\w+), nil\) = 0x(\w+);/#))
        let base = try #require(UInt(pointers.1, radix: 16))
        #expect([pointers.2, pointers.3].allSatisfy { UInt($0, radix: 16) == base })
        #expect(UInt(pointers.4, radix: 16) == base + 1)
        #expect(replay.contains(#/Zoo\.Arguments\.last\(0x\w+, count: 0\) = nil;/#))
        #expect(replay.contains(#/Zoo\.Arguments\.last\(0x\w+, count: 2\) = 0x\w+;/#))
    }

    /// Log mode's lines with values: arguments in place of the labels, results after the name
    /// (expected-values-trace.txt; the same calls as expected-trace.txt).
    @Test func logModeTranscriptCarriesTheValues() throws {
        let traced = try run(Self.built.traced6, [], environment: ["TRAIL_TRACE": "1"], check: true)
        let expected = Transcript.read(ZooTests.zoo + "/expected-values-trace.txt")
        #expect(Transcript.firstDifference(Transcript.maskTrace(traced.stderr), expected) == nil)
        #expect(expected.contains("[trail T] -> Zoo.Shelf.init(name: \"zoo\")  (Zoo/Shelf.swift:15)"))
    }
}
