import Foundation
import Testing
import TrailTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The log folder under real conditions: quotas that hold, settings that are checked, and files that someone
/// else planted there.
@Suite struct LogBoundsTests {
    func logFiles(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".log") }.sorted()
    }

    func folderSize(_ directory: String) throws -> Int {
        try logFiles(directory).reduce(0) { total, name in
            total + ((try FileManager.default.attributesOfItem(atPath: directory + "/" + name))[.size] as? Int ?? 0)
        }
    }

    @Test func theTotalQuotaHoldsAtEveryMomentCountingTheCurrentFile() throws {
        let directory = Paths.temporaryDirectory("quota")
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.quota, directory, 50000),
            environment: [
                "TRAIL_LOG_MAX_SIZE": "64K", "TRAIL_LOG_MAX_TOTAL": "160K", "TRAIL_LOG_MAX_FILES": "30",
            ], check: true)
        let largest = Int(
            result.stdout.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "")
        #expect(largest != nil && largest! > 100_000 && largest! <= 160 << 10, "\(result.stdout)")
        #expect(try folderSize(directory) <= 160 << 10)
    }

    @Test func loweringMaxFilesPrunesWhatIsBeyondIt() throws {
        let directory = Paths.temporaryDirectory("prune")
        for index in 1 ... 30 {
            try "old \(index)\n".write(toFile: "\(directory)/probe.\(index).log", atomically: false, encoding: .utf8)
        }
        try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.stderr, directory), environment: ["TRAIL_LOG_MAX_FILES": "3"],
            check: true)
        #expect(try logFiles(directory) == ["probe.28.log", "probe.29.log", "probe.30.log", "probe.log"])
        // Rotation renames one file however many are kept: the newest keeps the highest number.
        try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.stderr, directory), environment: ["TRAIL_LOG_MAX_FILES": "3"],
            check: true)
        #expect(try logFiles(directory) == ["probe.29.log", "probe.30.log", "probe.31.log", "probe.log"])
        #expect(Transcript.read(directory + "/probe.31.log").contains("after child"))
    }

    @Test func noSettingDeletesThePreviousRunsLogOnOpen() throws {
        let directory = Paths.temporaryDirectory("keep-previous")
        try run(RuntimeProbe.path, RuntimeProbe.arguments(.stderr, directory), check: true)
        let first = Transcript.read(directory + "/probe.log")
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.stderr, directory),
            environment: ["TRAIL_LOG_MAX_FILES": "0", "TRAIL_LOG_MAX_TOTAL": "4K"],
            check: true)
        // 0 is no limit, as for every limit; the total bounds the folder, and the previous run's log stays.
        #expect(!result.stderr.contains("TRAIL_LOG_MAX_FILES"), "\(result.stderr)")
        #expect(Transcript.read(directory + "/probe.1.log") == first)
    }

    @Test(arguments: [
        ("TRAIL_LOG_MAX_SIZE", "99999999999G", "TRAIL_LOG_MAX_SIZE=99999999999G is out of range (4K to 1T); using 1T"),
        (
            "TRAIL_LOG_MAX_TOTAL", "99999999999999999999",
            "TRAIL_LOG_MAX_TOTAL=99999999999999999999 is out of range (4K to 1T); using 1T"
        ),
        (
            "TRAIL_LOG_MAX_SIZE", "garbage",
            "TRAIL_LOG_MAX_SIZE=garbage is not a size such as 65536, 64K, 10M or 1G; using 10M"
        ),
        ("TRAIL_LOG_MAX_SIZE", "1K", "TRAIL_LOG_MAX_SIZE=1K is out of range (4K to 1T); using 4K"),
        ("TRAIL_LOG_MAX_FILES", "-5", "TRAIL_LOG_MAX_FILES=-5 is not a whole number; using 5"),
        (
            "TRAIL_LOG_LEVEL", "loud",
            "TRAIL_LOG_LEVEL=loud is not one of trace, debug, info, notice, warning, error, critical; using info"
        ),
        (
            "TRAIL_LOG_MAX_AGE", "soon",
            "TRAIL_LOG_MAX_AGE=soon is not a duration such as 90, 90s, 15m, 1h or 1d; using no age limit"
        ),
        ("TRAIL_LOG_FLUSH_MS", "-1", "TRAIL_LOG_FLUSH_MS=-1 is not a whole number; using 50"),
        ("TRAIL_LOG", "disk", "TRAIL_LOG=disk is not one of automatic, console, file, tee; using file"),
        (
            "TRAIL_CRASH", "nope",
            "TRAIL_CRASH=nope is not one of 1, 0, true, false, yes, no, on, off; using the program's setting"
        ),
        (
            "TRAIL_LOG_DURABLE", "sure",
            "TRAIL_LOG_DURABLE=sure is not one of 1, 0, true, false, yes, no, on, off; using 0"
        ),
        ("TRAIL_TRACE", "verbose", "TRAIL_TRACE=verbose is not one of off, log, record; using off"),
        ("TRAIL_CRASH_BREADCRUMBS", "lots", "TRAIL_CRASH_BREADCRUMBS=lots is not a whole number; using 32"),
    ])
    func badSettingsSpeakOnTheOriginalStandardError(name: String, value: String, message: String) throws {
        let directory = Paths.temporaryDirectory("setting")
        let result = try run(RuntimeProbe.path, RuntimeProbe.arguments(.stderr, directory), environment: [name: value])
        #expect(result.status == 0 && result.signal == nil, "\(result.stderr)")
        #expect(
            result.stderr.components(separatedBy: "\n").filter { $0.contains(name + "=") } == ["trail: " + message],
            "\(result.stderr)")
        #expect(Transcript.read(directory + "/probe.log").contains("after child"))
    }

    /// Sizes have one parser and one wording (settings.c), read by the C start-up (TRAIL_TRACE_*) and by Swift's
    /// Settings (TRAIL_LOG_*) alike: the same kinds of value get the same kinds of line from either.
    @Test(arguments: [
        (
            "TRAIL_TRACE_BUFFER", "garbage",
            "TRAIL_TRACE_BUFFER=garbage is not a size such as 65536, 64K, 10M or 1G; using 32M"
        ),
        ("TRAIL_TRACE_BUFFER", "-5", "TRAIL_TRACE_BUFFER=-5 is not a size such as 65536, 64K, 10M or 1G; using 32M"),
        ("TRAIL_TRACE_BUFFER", "1K", "TRAIL_TRACE_BUFFER=1K is out of range (16K to 4G); using 16K"),
        (
            "TRAIL_TRACE_BUFFER", "99999999999999999999",
            "TRAIL_TRACE_BUFFER=99999999999999999999 is out of range (16K to 4G); using 4G"
        ),
        ("TRAIL_TRACE_MAX_SIZE", "12x", "TRAIL_TRACE_MAX_SIZE=12x is not a size such as 65536, 64K, 10M or 1G; using "),
        ("TRAIL_LOG_MAX_SIZE", "-5", "TRAIL_LOG_MAX_SIZE=-5 is not a size such as 65536, 64K, 10M or 1G; using 10M"),
    ])
    func sizesReadInCAndInSwiftSpeakAlike(name: String, value: String, message: String) throws {
        let directory = Paths.temporaryDirectory("size-setting")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.stderr, directory),
            environment: [name: value, "TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": directory + "/probe.trace"])
        #expect(result.status == 0 && result.signal == nil, "\(result.stderr)")
        let lines = result.stderr.components(separatedBy: "\n").filter { $0.contains(name + "=") }
        #expect(lines.count == 1 && lines[0].hasPrefix("trail: " + message), "\(result.stderr)")
    }

    @Test func everyFileTrailCreatesIs0600WhateverTheUmask() throws {
        let directory = Paths.temporaryDirectory("umask")
        let trace = directory + "/probe.trace"
        // A crash leaves a log, a marker and a trace; the next launch rewrites the marker.
        _ = try run(
            "/bin/sh",
            ["-c", "umask 000; exec \"$0\" \"$@\"", RuntimeProbe.path]
                + RuntimeProbe.arguments(.crash, directory, CrashMethod.abort, 10),
            environment: ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": trace, "SWIFT_BACKTRACE": "enable=no"])
        try run(
            "/bin/sh",
            ["-c", "umask 000; exec \"$0\" \"$@\"", RuntimeProbe.path] + RuntimeProbe.arguments(.previous, directory),
            check: true)
        try run(
            "/bin/sh",
            [
                "-c", "umask 000; exec \"$0\" \"$@\"", Paths.trail, "report", "--crash", directory, "-o",
                directory + "/report.md",
            ],
            check: true)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(
            names.contains("probe.crash") && names.contains("probe.trace") && names.contains("probe.1.log")
                && names.contains("report.md"),
            "\(names)")
        for name in names {
            let mode =
                try FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(name) is \(String(mode ?? 0, radix: 8))")
        }
    }

    @Test func aHardLinkPlantedAsTheLogIsNeitherWrittenNorChanged() throws {
        let directory = Paths.temporaryDirectory("hardlink")
        let victim = Paths.temporaryDirectory("hardlink-victim") + "/victim.txt"
        try "precious\n".write(toFile: victim, atomically: false, encoding: .utf8)
        chmod(victim, 0o644)
        #expect(link(victim, directory + "/probe.log") == 0)
        let result = try run(RuntimeProbe.path, RuntimeProbe.arguments(.stderr, directory), check: true)
        #expect(
            result.stderr.contains("probe.log is a file with 2 hard links, not a log file Trail made"),
            "\(result.stderr)")
        #expect(Transcript.read(victim) == "precious\n")
        let attributes = try FileManager.default.attributesOfItem(atPath: victim)
        #expect(attributes[.posixPermissions] as? Int == 0o644)
        #expect(attributes[.referenceCount] as? Int == 1)
        #expect(Transcript.read(directory + "/probe.log").contains("after child"))
    }

    @Test func aFIFOPlantedAsTheLogDoesNotBlockBootstrap() throws {
        let directory = Paths.temporaryDirectory("fifo")
        #expect(mkfifo(directory + "/probe.log", 0o600) == 0)
        let result = try run(
            "/usr/bin/timeout", ["20", RuntimeProbe.path] + RuntimeProbe.arguments(.stderr, directory), check: true)
        #expect(result.stderr.contains("probe.log is a FIFO, not a log file Trail made"), "\(result.stderr)")
        let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/probe.log")
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        #expect(Transcript.read(directory + "/probe.log").contains("after child"))
    }

    @Test func aFolderOthersCanWriteIsReportedOnce() throws {
        let directory = Paths.temporaryDirectory("open-folder")
        chmod(directory, 0o777)
        let result = try run(RuntimeProbe.path, RuntimeProbe.arguments(.stderr, directory), check: true)
        #expect(
            result.stderr.components(separatedBy: "can be written by anyone (mode 777)").count == 2, "\(result.stderr)")
    }

    /// A termination signal the program left at its default writes the buffered lines before the process ends
    /// of it: the last line before `systemctl stop` is the one wanted.
    @Test(arguments: [(LastWordsSignal.term, Int32(15)), (.int, Int32(2)), (.hup, Int32(1))])
    func aTerminationSignalKeepsTheLastLines(_ name: LastWordsSignal, _ signal: Int32) throws {
        let directory = Paths.temporaryDirectory("last-words-\(name)")
        let result = try run(RuntimeProbe.path, RuntimeProbe.arguments(.lastWords, directory, name))
        #expect(result.signal == signal, "\(result.stderr)")
        #expect(!result.stdout.contains("not ended"))
        #expect(Transcript.read(directory + "/probe.log").contains("info probe: shutting down"))
    }

    /// A text log holds a line per record: a logged line break continues on an indented line, so logged text
    /// cannot pass for a crash block, and terminal escapes and NULs are written as \xHH.
    @Test func loggedTextCannotForgeACrashBlockOrDriveATerminal() throws {
        let directory = Paths.temporaryDirectory("forge")
        try run(RuntimeProbe.path, RuntimeProbe.arguments(.forge, directory), check: true)
        let log = Transcript.read(directory + "/probe.log")
        #expect(
            log.contains(
                " info probe: ok\n  === TRAIL CRASH BEGIN v1 ===\n  signal: 11 SIGSEGV\n  === TRAIL CRASH END ===\n  \\x1b[31mred\\x00 note=two\n  lines ("
            ),
            "\(log)")
        #expect(!log.contains("\u{1B}") && !log.contains("\u{0}") && !log.contains("\r"))
        let report = try run(Paths.trail, ["report", "--crash", directory])
        #expect(report.status != 0 && report.stderr.contains("no crash"), "\(report.stdout)\(report.stderr)")
    }

    @Test func integersAreFormattedAsSwiftPrintsThem() throws {
        let directory = Paths.temporaryDirectory("numbers")
        try run(RuntimeProbe.path, RuntimeProbe.arguments(.numbers, directory), check: true)
        let logged = Transcript.read(directory + "/probe.log").split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "info probe: number ") else { return nil }
            return String(line[range.upperBound...].prefix { $0 != " " })
        }
        let values = [
            0, 7, 9, 10, 42, 99, 100, 101, 999, 1000, 65535, 1_234_567, -1, -9, -10, -100, -98765, Int.max, Int.min,
        ]
        #expect(logged == values.map(String.init))
    }
}
