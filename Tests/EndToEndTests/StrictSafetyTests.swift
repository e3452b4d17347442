import Foundation
import Testing
import TrailTestSupport

/// A module built with `-strict-memory-safety -warnings-as-errors` (SE-0458) still builds traced, with values and
/// without, in Swift 5 and 6 modes: an argument of an unsafe type is read as `unsafe Trail.value(…)`, and a result
/// of one passes through the exit only where the body's own `unsafe` covers it.
@Suite struct StrictSafetyTests {
    static let fixture = Paths.fixture("StrictSafety")

    func compile(_ sources: String, traced: Bool, into output: String, flags: [String]) throws {
        var arguments = ["-module-name", "Strict", "-parse-as-library", "-warnings-as-errors", "-o", output] + flags
        if traced {
            let build = Paths.buildDirectory
            arguments += [
                "-I", build + "/Modules", "-I", Paths.packageRoot + "/Sources/CTrailHooks/include",
                "-L", build, "-lTrailDynamic", "-Xlinker", "-rpath", "-Xlinker", build,
            ]
        }
        try run("swiftc", arguments + [sources + "/main.swift"], check: true)
    }

    /// `copy`: a build copy as the plugin makes, whose `#sourceLocation` lines keep the columns.
    @Test(arguments: [false, true], [false, true])
    func buildsTracedAndPrintsTheSame(values: Bool, copy: Bool) throws {
        let directory = Paths.temporaryDirectory("strict-safety")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let strict = ["-swift-version", "6", "-strict-memory-safety"]
        try compile(Self.fixture, traced: false, into: directory + "/plain", flags: strict)
        let plain = try run(directory + "/plain", [], check: true).stdout
        #expect(plain == "42 true true true\ntrue 3 0 2\n5 0 0 true true\n")
        let instrumented = directory + "/src"
        try run(
            Paths.trail,
            ["instrument"] + (values ? ["--values"] : []) + [
                "--module", "Strict", "--output", instrumented, Self.fixture,
            ],
            check: true)
        for (name, flags) in [
            ("strict", strict), ("swift6", ["-swift-version", "6"]), ("swift5", ["-swift-version", "5"]),
        ] {
            try compile(instrumented, traced: true, into: directory + "/" + name, flags: flags)
            let trace = directory + "/\(name).trace"
            let recording = ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": trace]
            #expect(try run(directory + "/" + name, [], environment: recording, check: true).stdout == plain)
            let replay = try run(Paths.trail, ["replay", trace], check: true).stdout
            let expected =
                values
                ? ["Strict.first(0x", ", plus: 2) = 42;", "Strict.same(nil) = nil;", "Strict.count(of: nil) = 0;"]
                : ["Strict.first(_:plus:);", "Strict.none();", "Strict.later(); [async]"]
            for line in expected { #expect(replay.contains(line), "\(name): \(line)\n\(replay)") }
        }
    }
}
