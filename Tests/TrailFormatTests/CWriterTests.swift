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
        "CLOCK_KIND_CYCLES": String(TraceLayout.Clock.cycles.rawValue),
        "CLOCK_KIND_MONOTONIC": String(TraceLayout.Clock.monotonic.rawValue),
        "CHUNK_INFO": String(TraceLayout.Chunk.info.rawValue),
        "CHUNK_NAMES": String(TraceLayout.Chunk.names.rawValue),
        "CHUNK_THREAD": String(TraceLayout.Chunk.thread.rawValue),
        "CHUNK_RECORDS": String(TraceLayout.Chunk.records.rawValue),
        "CHUNK_CLOCK": String(TraceLayout.Chunk.clock.rawValue),
        "CHUNK_END": String(TraceLayout.Chunk.end.rawValue),
        "TRAIL_RECORD_SIZE": String(TraceRecord.size),
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

    static var twins: [String: String] { trace }

    @Test func everyLiteralOfTheHeaderAgreesWithItsSwiftTwin() {
        let header = Self.header.filter { $0.key != "TRAIL_FORMAT_H" && !Self.derived.contains($0.key) }
        #expect(!header.isEmpty)
        for (name, value) in header.sorted(by: { $0.key < $1.key }) {
            #expect(Self.twins[name] == value, "\(name) is \(value) in C")
        }
        #expect(Set(Self.twins.keys).subtracting(header.keys).isEmpty, "Swift twins the header lacks")
    }

    @Test func recordWordsDecodeAsTheWriterPacksThem() {
        // record_word(address, depth, kind) in C.
        let word = UInt64(0x7f12_3456_789a) | UInt64(4095) << TraceRecord.depthShift
            | UInt64(TraceRecord.Kind.asyncExit.rawValue) << TraceRecord.kindShift
        let record = TraceRecord(time: 1, word: word)
        #expect(record.kind == .asyncExit && record.depth == 4095 && record.address == 0x7f12_3456_789a)
        #expect(TraceRecord(time: 0, word: 8 << TraceRecord.kindShift).kind == nil)
    }
}
