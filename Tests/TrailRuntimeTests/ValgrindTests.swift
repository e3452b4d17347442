import Foundation
import Testing
import TrailTestSupport

/// A traced program runs under the debugging tools its untraced build runs under. Valgrind 3.19 (Debian 12's)
/// gave up on every traced build ("Possibly corrupted debuginfo file"): the runtime's C units carried DWARF 5
/// forms it cannot read beside Swift's DWARF 4, so they are built with DWARF 4 (Package.swift, RuntimePackage).
@Suite struct ValgrindTests {
    @Test(arguments: ["off", "record"])
    func aTracedProgramRunsUnderValgrind(mode: String) throws {
        let directory = Paths.temporaryDirectory("valgrind-\(mode)")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var environment: [String: String] = [:]
        if mode == "record" {
            environment = ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": directory + "/t.trace"]
        }
        let result = try run(
            "/usr/bin/timeout",
            ["-s", "KILL", "120", "valgrind", "--tool=none", RuntimeProbe.path]
                + RuntimeProbe.arguments(.calls, directory, 50),
            environment: environment)
        #expect(result.shellStatus == 0, "\(result.stderr.suffix(1500))")
        #expect(result.stdout == "done\n")
        #expect(!result.stderr.contains("Giving up"), "\(result.stderr.suffix(1500))")
        if mode == "record" {
            // The same trace as the program writes on its own.
            let underValgrind = try TraceDump(path: directory + "/t.trace")
            environment["TRAIL_TRACE_FILE"] = directory + "/alone.trace"
            try run(RuntimeProbe.path, RuntimeProbe.arguments(.calls, directory, 50), environment: environment)
            let alone = try TraceDump(path: directory + "/alone.trace")
            #expect(underValgrind.recordCount == alone.recordCount && alone.recordCount > 0)
            #expect(underValgrind.problems.isEmpty, "\(underValgrind.problems)")
        }
    }
}
