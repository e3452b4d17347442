import Foundation
import TrailFormat

#if canImport(Glibc)
import Glibc
#endif

/// Turns logs (text or JSON lines, rotated files, crash blocks inside) into OTLP log records, one pass:
/// - a JSON line (Docs/log-format.md) keeps its fields: time, level, label, message, metadata as attributes,
///   source as `code.*`, thread, and `trace_id`/`span_id`, which join the record to its span;
/// - a text line `<time> <level> <label>: <message> (<file>:<line>)` gives the same, less what text drops;
/// - any other line is raw output to stderr: severity INFO, `trail.label` "stderr", the time of the line before;
/// - a crash block is one record, FATAL (an ERROR block: ERROR), with the `exception.*` attributes and the stack
///   that `stacktrace` gives (symbolized when the caller can), else the block's raw frames.
/// A new resource starts wherever the pid of JSON lines changes (rotated files of several runs).
public struct LogExport {
    public var serviceName: String?
    public var resourceAttributes: [Attribute] = []
    /// The symbolized stack of a crash block, or nil.
    public var stacktrace: (CrashBlock) -> String? = { _ in nil }
    /// Crash blocks longer than this many lines are cut (a block is a few hundred lines).
    static let maxBlockLines = 100_000

    public init(serviceName: String? = nil, resourceAttributes: [Attribute] = []) {
        self.serviceName = serviceName
        self.resourceAttributes = resourceAttributes
    }

    public struct Counts: Sendable, Equatable {
        public var records = 0
        public var crashes = 0
        public var rawLines = 0
        public var cutLines = 0
    }

    /// Reads `paths` (files or log folders) in order into `writer`; a resource per app and pid.
    public func export(_ paths: [String], to writer: OTLPWriter<LogRecord>) throws -> Counts {
        var current: ProcessResource?
        var parser = LogRecordParser(export: self) { resource, record in
            if resource != current {
                if current != nil { try writer.endResource() }
                try writer.beginResource(resource)
                current = resource
            }
            try writer.add(record)
        }
        for path in paths {
            for file in try LogLines.files(path) {
                parser.beginFile(file)
                var lines = LogLines()
                try lines.forEach(in: file) { try parser.take($0) }
                try parser.endBlock()
                parser.counts.cutLines += lines.cutLines
            }
        }
        if current != nil { try writer.endResource() }
        return parser.counts
    }
}

func attributeValue(_ value: Any) -> AttributeValue {
    switch value {
    case let text as String: .string(text)
    case let list as [Any]: .array(list.map(attributeValue))
    case let object as [String: Any]:
        .keyValues(object.keys.sorted().map { Attribute($0, attributeValue(object[$0]!)) })
    default: .string("\(value)")
    }
}

/// `2026-12-02T11:36:51.123456789Z` (any number of fraction digits, UTC only) as nanoseconds since the epoch.
func parseRFC3339<Text: StringProtocol>(_ text: Text) -> UInt64? {
    let bytes = Array(text.utf8)
    guard bytes.count >= 20, bytes.last == 90, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84, bytes[13] == 58,
        bytes[16] == 58
    else { return nil }
    func number(_ range: Range<Int>) -> Int? {
        var value = 0
        for index in range {
            guard bytes[index] >= 48, bytes[index] <= 57 else { return nil }
            value = value * 10 + Int(bytes[index] - 48)
        }
        return value
    }
    guard let year = number(0 ..< 4), let month = number(5 ..< 7), let day = number(8 ..< 10),
        let hour = number(11 ..< 13),
        let minute = number(14 ..< 16), let second = number(17 ..< 19), (1 ... 12).contains(month),
        (1 ... 31).contains(day)
    else { return nil }
    var nanoseconds = 0
    if bytes[19] == 46 {
        let digits = bytes.count - 21
        guard digits >= 1, digits <= 9, let fraction = number(20 ..< bytes.count - 1) else { return nil }
        nanoseconds =
            fraction
            * [1, 10, 100, 1000, 10000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000][9 - digits]
    } else if bytes.count != 20 {
        return nil
    }
    // Days since the epoch of a proleptic Gregorian date (the civil-from-days algorithm, inverted).
    let shiftedYear = month <= 2 ? year - 1 : year
    let era = shiftedYear / 400
    let yearOfEra = shiftedYear - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    let days = era * 146_097 + dayOfEra - 719_468
    let seconds = days * 86400 + hour * 3600 + minute * 60 + second
    guard seconds >= 0 else { return nil }
    return UInt64(seconds) * 1_000_000_000 + UInt64(nanoseconds)
}

func unixNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}
