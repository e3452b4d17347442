/// One logger line (Docs/log-format.md, "Lines"), defined once for Trail's writer (LogSink, LineBuilder+JSON) and the
/// reader (TrailTelemetry's LogRecordParser). Text lines read
///
///     <time> <level> <label>: <message>[ key=value…] (<file>:<line>)
///
/// and JSON lines (`TRAIL_LOG_FORMAT=json`) hold the keys below, in this order. Every other line in a log is raw
/// output to fd 2, kept as it was written. Log mode's call lines (`TRAIL_TRACE=1`) are text lines whose message
/// ends in `  trace_id=<32 hex> span_id=<16 hex>`, written by the C runtime (log_events.c).
public enum LogLineFormat {
    /// Ends a text line's label.
    @inlinable public static var labelEnd: StaticString { ": " }
    /// Around a text line's source location.
    @inlinable public static var locationStart: StaticString { " (" }
    @inlinable public static var locationEnd: StaticString { ")" }

    /// A JSON key with the punctuation before its value, so the writer appends one static string per key.
    /// Inlinable and computed: the logger's hot path reads them as constants, with no lazy global to check.
    public struct JSONKey: Sendable {
        /// `,"label":`, or `{"time":` for the first key.
        public let field: StaticString

        @usableFromInline init(_ field: StaticString) { self.field = field }

        /// The bare key, `label`.
        public var name: String {
            let text = field.description
            return String(text.dropFirst(2).dropLast(2))
        }
    }

    @inlinable public static var time: JSONKey { JSONKey(#"{"time":"#) }
    @inlinable public static var level: JSONKey { JSONKey(#","level":"#) }
    @inlinable public static var label: JSONKey { JSONKey(#","label":"#) }
    @inlinable public static var message: JSONKey { JSONKey(#","message":"#) }
    /// An object of the call's metadata, keys sorted.
    @inlinable public static var metadata: JSONKey { JSONKey(#","metadata":"#) }
    /// An object of `file`, `function`, `line` and, for swift-log's calls, `module`.
    @inlinable public static var source: JSONKey { JSONKey(#","source":"#) }
    @inlinable public static var sourceFile: JSONKey { JSONKey(#"{"file":"#) }
    @inlinable public static var sourceFunction: JSONKey { JSONKey(#","function":"#) }
    @inlinable public static var sourceLine: JSONKey { JSONKey(#","line":"#) }
    @inlinable public static var sourceModule: JSONKey { JSONKey(#","module":"#) }
    @inlinable public static var pid: JSONKey { JSONKey(#","pid":"#) }
    @inlinable public static var threadID: JSONKey { JSONKey(#","thread_id":"#) }
    /// The span in effect, when there is one, as OTLP names it: 32 and 16 lowercase hex digits.
    @inlinable public static var traceID: JSONKey { JSONKey(#","trace_id":"#) }
    @inlinable public static var spanID: JSONKey { JSONKey(#","span_id":"#) }

    /// A text line's parts; nil for a line that is not the logger's (no time and level first).
    public struct TextLine {
        /// Nanoseconds since the epoch.
        public var time: UInt64
        public var level: Substring
        public var label: Substring?
        /// The message and its metadata, as written.
        public var body: Substring
        public var file: Substring?
        public var line: Int?

        public init?(_ text: String) {
            let words = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard words.count == 3, let time = LogTime.parse(words[0]) else { return nil }
            (self.time, level) = (time, words[1])
            var rest = words[2]
            if let colon = rest.firstRange(of: LogLineFormat.labelEnd.description),
                !rest[..<colon.lowerBound].contains(" ")
            {
                label = rest[..<colon.lowerBound]
                rest = rest[colon.upperBound...]
            }
            let end = LogLineFormat.locationEnd.description
            if rest.hasSuffix(end), let open = Self.lastRange(of: LogLineFormat.locationStart.description, in: rest) {
                let location = rest[open.upperBound ..< rest.index(rest.endIndex, offsetBy: -end.count)]
                if let colon = location.lastIndex(of: ":"), let number = Int(location[location.index(after: colon)...])
                {
                    (file, line) = (location[..<colon], number)
                    rest = rest[..<open.lowerBound]
                }
            }
            body = rest
        }

        private static func lastRange(of pattern: String, in text: Substring) -> Range<Substring.Index>? {
            var index = text.endIndex
            while index > text.startIndex {
                index = text.index(before: index)
                if text[index...].hasPrefix(pattern) {
                    return index ..< text.index(index, offsetBy: pattern.count)
                }
            }
            return nil
        }
    }
}
