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

func unixNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}
