import Foundation
import Testing
import TrailFormat
import TrailTestSupport

/// The C writer's copy of the formats (Sources/CTrailShim/trail_format.h) against their Swift definition:
/// every literal of the header has a Swift twin here, and they agree.
@Suite struct CWriterTests {
    /// `#define NAME value` and `NAME = value,` (enumerators) of the header, comments removed.
    static let header: [String: String] = {
        let text = Transcript.read(Paths.packageRoot + "/Sources/CTrailShim/trail_format.h")
        var found: [String: String] = [:]
        for raw in text.split(separator: "\n") {
            let line = raw.components(separatedBy: "//")[0].trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#define ") {
                let parts = line.dropFirst(8).split(separator: " ", maxSplits: 1).map(String.init)
                if parts.count == 2 { found[parts[0]] = parts[1] }
            } else if let equals = line.range(of: " = "), line.hasSuffix(",") {
                found[String(line[..<equals.lowerBound])] = String(line[equals.upperBound...].dropLast())
            }
        }
        return found
    }()

    static func quoted(_ text: String) -> String { "\"" + text + "\"" }

    /// Names of the header that need no twin: derived values and the include guard.
    static let derived: Set<String> = ["WORD_ADDRESS_MASK"]

    static let trace: [String: String] = [
        "TRAIL_TRACE_MAGIC": quoted(TraceLayout.magic.description),
        "TRAIL_TRACE_VERSION": String(TraceLayout.version),
        "TRAIL_TRACE_HEADER_SIZE": String(TraceLayout.headerSize),
        "TRAIL_TRACE_BLOCK_MAGIC": quoted(TraceLayout.blockMagic.description),
        "TRAIL_TRACE_BLOCK_HEADER_SIZE": String(TraceLayout.blockHeaderSize),
        "TRAIL_TRACE_BLOCK_SIZE": String(TraceLayout.defaultBlockSize),
        "TRAIL_RECORDS_HEADER_SIZE": String(TraceLayout.recordsHeaderSize),
        "POLICY_UNBOUNDED": String(TraceLayout.Policy.unbounded.rawValue),
        "POLICY_KEEP_LAST": String(TraceLayout.Policy.keepLast.rawValue),
        "POLICY_KEEP_FIRST": String(TraceLayout.Policy.keepFirst.rawValue),
        "CHUNK_CUT": String(TraceLayout.Chunk.cut.rawValue),
        "CHUNK_WATERMARK": String(TraceLayout.Chunk.watermark.rawValue),
        "CHUNK_SPAN": String(TraceLayout.Chunk.span.rawValue),
        "TRAIL_SPAN_HEADER_SIZE": String(TraceLayout.spanHeaderSize),
        "TRAIL_SPAN_PHASE_START": String(TraceLayout.SpanPhase.start.rawValue),
        "TRAIL_SPAN_PHASE_END": String(TraceLayout.SpanPhase.end.rawValue),
        "TRAIL_SPAN_DETAILS_MAX": String(TraceLayout.spanDetailsMax),
        "CLOCK_KIND_CYCLES": String(TraceLayout.Clock.cycles.rawValue),
        "CLOCK_KIND_MONOTONIC": String(TraceLayout.Clock.monotonic.rawValue),
        "CHUNK_INFO": String(TraceLayout.Chunk.info.rawValue),
        "CHUNK_NAMES": String(TraceLayout.Chunk.names.rawValue),
        "CHUNK_THREAD": String(TraceLayout.Chunk.thread.rawValue),
        "CHUNK_RECORDS": String(TraceLayout.Chunk.records.rawValue),
        "CHUNK_CLOCK": String(TraceLayout.Chunk.clock.rawValue),
        "CHUNK_END": String(TraceLayout.Chunk.end.rawValue),
        "TRAIL_RECORD_SIZE": String(TraceRecord.size),
        "TRAIL_INFO_EXE": quoted(TraceInfo.Key.executable.rawValue),
        "TRAIL_INFO_PID": quoted(TraceInfo.Key.pid.rawValue),
        "TRAIL_INFO_HOST": quoted(TraceInfo.Key.host.rawValue),
        "TRAIL_INFO_APP": quoted(TraceInfo.Key.app.rawValue),
        "TRAIL_INFO_VERSION": quoted(TraceInfo.Key.version.rawValue),
        "TRAIL_INFO_TRACEPARENT": quoted(TraceInfo.Key.traceparent.rawValue),
        "TRAIL_INFO_CMDLINE": quoted(TraceInfo.Key.commandLine.rawValue),
        "TRAIL_INFO_BUILD_ID": quoted(TraceInfo.Key.buildID.rawValue),
        "TRAIL_INFO_CMDLINE_MAX": String(TraceInfo.commandLineMax),
        "TRAIL_SITE_SEPARATOR": quoted(SiteName.separator),
        "TRAIL_TRACEPARENT_LENGTH": String(TraceParent.length),
        "WORD_ADDRESS_BITS": String(TraceRecord.addressBits),
        "WORD_DEPTH_SHIFT": String(TraceRecord.depthShift),
        "WORD_DEPTH_MAX": "0x" + String(TraceRecord.depthMax, radix: 16, uppercase: true) + "u",
        "WORD_KIND_SHIFT": String(TraceRecord.kindShift),
        "KIND_ENTER": String(TraceRecord.Kind.enter.rawValue),
        "KIND_EXIT": String(TraceRecord.Kind.exit.rawValue),
        "KIND_ASYNC_ENTER": String(TraceRecord.Kind.asyncEnter.rawValue),
        "KIND_ASYNC_EXIT": String(TraceRecord.Kind.asyncExit.rawValue),
        "KIND_TASK": String(TraceRecord.Kind.task.rawValue),
        "KIND_AUX": String(TraceRecord.Kind.aux.rawValue),
        "KIND_DROPPED": String(TraceRecord.Kind.dropped.rawValue),
    ]

    static let crash: [String: String] = {
        typealias S = CrashBlockSyntax
        var twins = [
            "TRAIL_BLOCK_MARKER_OPEN": quoted(S.markerOpen.description),
            "TRAIL_BLOCK_CRASH": quoted(CrashBlock.Kind.crash.rawValue),
            "TRAIL_BLOCK_ERROR": quoted(CrashBlock.Kind.error.rawValue),
            "TRAIL_BLOCK_BEGIN": quoted(" \(S.beginWord) v\(S.version)\(S.markerClose)"),
            "TRAIL_BLOCK_END": quoted(S.endTail.description),
            "TRAIL_SIGNAL_CODE": quoted(S.signalCode.description),
            "TRAIL_SIGNAL_ADDRESS": quoted(S.signalAddress.description),
            "TRAIL_LINE_FRAME": quoted(S.frame.description),
            "TRAIL_FRAME_PC": quoted(S.programCounter.description),
            "TRAIL_FRAME_RA": quoted(S.returnAddress.description),
            "TRAIL_LINE_IMAGE": quoted(S.image.description),
            "TRAIL_NO_BUILD_ID": quoted(S.noBuildID.description),
            "TRAIL_LINE_CRUMB": quoted(S.crumb.description),
            "TRAIL_LINE_OPEN": quoted(S.open.description),
        ]
        func name(_ text: String) -> String { text.uppercased().replacingOccurrences(of: "-", with: "_") }
        for key in S.fieldKeys { twins["TRAIL_FIELD_" + name(key)] = quoted(key + S.fieldSeparator.description) }
        for mode in S.traceModes { twins["TRAIL_TRACE_" + name(mode)] = quoted(mode) }
        for event in S.breadcrumbEvents { twins["TRAIL_EVENT_" + name(event)] = quoted(event) }
        for key in CrashMarker.Key.allCases { twins["TRAIL_MARKER_" + name(key.rawValue)] = quoted(key.rawValue + "=") }
        return twins
    }()

    static var twins: [String: String] { trace.merging(crash) { $1 }.merging(values) { $1 } }

    @Test func everyLiteralOfTheHeaderAgreesWithItsSwiftTwin() {
        let header = Self.header.filter { $0.key != "TRAIL_FORMAT_H" && !Self.derived.contains($0.key) }
        #expect(!header.isEmpty)
        for (name, value) in header.sorted(by: { $0.key < $1.key }) {
            #expect(Self.twins[name] == value, "\(name) is \(value) in C")
        }
        #expect(Set(Self.twins.keys).subtracting(header.keys).isEmpty, "Swift twins the header lacks")
    }

    @Test func signalNamesAgree() {
        let text = Transcript.read(Paths.packageRoot + "/Sources/CTrailShim/trail_format.h")
        var c: [Int32: String] = [:]
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard words.count == 4, words[0] == "case", words[2] == "return" else { continue }
            c[Int32(words[1].dropLast())!] = String(words[3].dropFirst().dropLast(2))
        }
        #expect(c.count == 6, "\(c)")
        for number: Int32 in 0 ... 64 { #expect(CrashSignal.name(number) == c[number], "signal \(number)") }
        #expect(
            CrashSignal.name(SIGSEGV) == "SIGSEGV" && CrashSignal.name(SIGBUS) == "SIGBUS"
                && CrashSignal.name(SIGILL) == "SIGILL")
        #expect(
            CrashSignal.name(SIGTRAP) == "SIGTRAP" && CrashSignal.name(SIGFPE) == "SIGFPE"
                && CrashSignal.name(SIGABRT) == "SIGABRT")
    }

    @Test func markerTextRoundTrips() {
        let marker = CrashMarker(
            log: "/var/log/app/app.log", offset: 84, signal: 11, pid: 11987, time: "2026-12-02T13:37:55.776098Z")
        #expect(
            marker.text
                == "log=/var/log/app/app.log\noffset=84\nsignal=11\npid=11987\ntime=2026-12-02T13:37:55.776098Z\n")
        #expect(CrashMarker(parsing: marker.text) == marker)
        #expect(
            CrashMarker(parsing: "log=x\nsignal=0\noffset=y\nnoise")
                == CrashMarker(log: "x", offset: nil, signal: nil, pid: nil, time: nil))
        #expect(CrashMarker(parsing: "offset=1\n") == nil)
    }

    @Test func headerParsesTheBlockFields() {
        var bytes = Array("TRAILTRC".utf8)
        func put32(_ value: UInt32) {
            for index in 0 ..< 4 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
        }
        func put64(_ value: UInt64) {
            put32(UInt32(truncatingIfNeeded: value))
            put32(UInt32(value >> 32))
        }
        put32(2)
        put32(64)
        put32(4242)
        put32(1)
        put64(1_700_000_000_000_000_000)
        put64(123)
        put64(456)
        put32(1 << 20)
        put32(TraceLayout.Policy.keepLast.rawValue)
        put64(1024)
        #expect(bytes.count == TraceLayout.headerSize)
        let header = try! #require(TraceHeader(bytes))
        #expect(header.version == 2 && header.size == 64 && header.pid == 4242 && header.clockKind == 1)
        #expect(header.ticks == 123 && header.monotonicNanoseconds == 456)
        #expect(header.blockSize == 1 << 20 && header.policy == 1 && header.maxBlocks == 1024)
        #expect(TraceLayout.blockOffset(3, headerSize: 64, blockSize: 1 << 20) == 64 + 3 << 20)
        #expect(TraceHeader(Array(bytes.prefix(63))) == nil)
    }

    @Test func recordWordsDecodeAsTheWriterPacksThem() {
        // record_word(address, depth, kind) in C.
        let word =
            UInt64(0x7f12_3456_789a) | UInt64(4095) << TraceRecord.depthShift
            | UInt64(TraceRecord.Kind.asyncExit.rawValue) << TraceRecord.kindShift
        let record = TraceRecord(time: 1, word: word)
        #expect(record.kind == .asyncExit && record.depth == 4095 && record.address == 0x7f12_3456_789a)
        #expect(TraceRecord(time: 0, word: 8 << TraceRecord.kindShift).kind == nil)
    }
}
