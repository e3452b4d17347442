import Foundation
import Testing
import TrailFormat
import TrailTestSupport

/// TrailFormat's `LogLineFormat` is the one definition of a logger line: what the runtime really writes must be
/// what it describes, key by key and part by part, since the OTLP log exporter reads lines through it.
@Suite struct LogLineFormatTests {
    static let allKeys: [LogLineFormat.JSONKey] = [
        LogLineFormat.time, LogLineFormat.level, LogLineFormat.label, LogLineFormat.message, LogLineFormat.metadata,
        LogLineFormat.source, LogLineFormat.pid, LogLineFormat.threadID, LogLineFormat.traceID, LogLineFormat.spanID,
    ]

    @Test func jsonLinesHoldTheDefinedKeysInTheirOrder() throws {
        let directory = Paths.temporaryDirectory("log-line-json")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.jsonSpans, directory),
            environment: ["TRAIL_LOG_FORMAT": "json", "TRAIL_TRACE": "record"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = Transcript.read(directory + "/probe.log").split(separator: "\n").filter { $0.hasPrefix("{") }
        #expect(lines.count == 3)
        var keysSeen = Set<String>()
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let present = Self.allKeys.filter { object[$0.name] != nil }
            #expect(Set(present.map(\.name)) == Set(object.keys), "a key the format does not define: \(line)")
            // Each key's field, punctuation included, appears in the defined order.
            let offsets = present.map { line.firstRange(of: $0.field.description)?.lowerBound }
            #expect(!offsets.contains(nil) && offsets.map { $0! } == offsets.map { $0! }.sorted(), "\(line)")
            let source = try #require(object[LogLineFormat.source.name] as? [String: Any])
            let sourceKeys = [LogLineFormat.sourceFile, LogLineFormat.sourceFunction, LogLineFormat.sourceLine]
            #expect(Set(source.keys) == Set(sourceKeys.map(\.name)))
            keysSeen.formUnion(object.keys)
        }
        #expect(keysSeen == Set(Self.allKeys.map(\.name)).subtracting([LogLineFormat.metadata.name]))
    }

    @Test func textLinesSplitIntoTheirParts() throws {
        let directory = Paths.temporaryDirectory("log-line-text")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try run(RuntimeProbe.path, RuntimeProbe.arguments(.jsonLines, directory, 3))
        #expect(result.status == 0, "\(result.stderr)")
        let lines = Transcript.read(directory + "/probe.log").split(separator: "\n").map(String.init)
        let parsed = lines.compactMap(LogLineFormat.TextLine.init)
        // Raw stderr, and the rest of a message whose literal holds a line break, are not logger lines. Their order
        // is not the program's: raw stderr goes through the pipe's drain, the message through the logger's buffer.
        #expect(lines.filter { LogLineFormat.TextLine($0) == nil }.map { $0.prefix(5) }.sorted() == [" tab ", "raw s"])
        let thread = parsed.filter { $0.label == "t2" }
        #expect(thread.map(\.body) == ["line 0 of thread 2", "line 1 of thread 2", "line 2 of thread 2"])
        #expect(
            thread.allSatisfy { $0.level == "info" && $0.file == "trail_probe/LoggerModes.swift" && $0.line != nil })
        // A label holding a space cannot be told from the message: it stays in the body.
        let levels = parsed.filter { $0.body.hasPrefix(#"json "probe": level "#) }
        #expect(levels.map(\.level) == ["trace", "debug", "info", "notice", "warning", "error", "critical"])
        #expect(levels.allSatisfy { $0.label == nil && $0.body.hasSuffix(" request=r-1") && $0.line != nil })
        let now = UInt64(Date().timeIntervalSince1970 * 1e9)
        #expect(thread.allSatisfy { $0.time <= now && now - $0.time < 600_000_000_000 })
    }

    @Test func timesAreRFC3339InUTC() {
        #expect(LogTime.parse("1970-01-01T00:00:00Z") == 0)
        #expect(LogTime.parse("2026-12-02T11:36:51.123456Z") == 1_796_211_411_123_456_000)
        #expect(LogTime.parse("2000-02-29T00:00:01.000000001Z") == 951_782_401_000_000_001)
        #expect(LogTime.parse("2026-13-02T11:36:51Z") == nil)
        #expect(LogTime.parse("2026-12-02T11:36:51+01:00") == nil)
    }

    @Test func aLineThatIsNotTheLoggersIsNotParsed() {
        #expect(LogLineFormat.TextLine("raw stderr line") == nil)
        #expect(LogLineFormat.TextLine("2026-12-02T11:36:51Z info") == nil)
        let bare = LogLineFormat.TextLine("2026-12-02T11:36:51Z info a message (not a location)")
        #expect(bare?.label == nil && bare?.file == nil && bare?.body == "a message (not a location)")
    }
}
