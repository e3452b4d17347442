/// VALUE records (values built in, issue 41): a call's arguments, after its ENTER, and its result, right before its
/// EXIT. `trail_format.h` is the C twin (`CWriterTests`-style checks in `ValueRecordTests`). A VALUE record is an AUX
/// record (`TraceRecord.Kind.aux`) whose bits 48-59 are not 0, so a reader that predates values skips it as a
/// stray AUX and never takes its payload for a time:
/// - address: the descriptor, a static string in NAMES (`"n: Int"`, `"_ path: String"`, `"-> Int"`);
/// - bits 48-52 the tag (`ValueTag`), 53-54 the role (`ValueRole`), 55-59 how many DATA records follow;
/// - time: the payload (`ValueTag` says what it holds).
/// A DATA record is an AUX record with bits 48-59 at 0 holding 14 bytes of a string: its time's 8, then its word's
/// bits 0-47.
public enum ValueRecord {
    public static var tagShift: UInt64 { 48 }
    public static var tagMask: UInt64 { 0x1F }
    public static var roleShift: UInt64 { 53 }
    public static var roleMask: UInt64 { 0x3 }
    public static var dataShift: UInt64 { 55 }
    public static var dataMax: UInt64 { 31 }
    public static var dataBytes: Int { 14 }
    public static var stringMax: Int { 31 * 14 }

    /// Whether `record` is a VALUE record (as opposed to an AUX of a call, or a DATA record).
    @inlinable public static func isValue(_ record: TraceRecord) -> Bool {
        record.kind == .aux && (record.word >> tagShift) & 0xFFF != 0
    }

    /// One value, whole.
    public struct Value: Equatable, Sendable {
        public var descriptor: UInt64
        public var role: ValueRole
        public var tag: ValueTag
        /// The payload: the bits of a scalar; for a string, its bytes recorded and (high 32 bits) its length.
        public var payload: UInt64
        /// A string's recorded bytes.
        public var bytes: [UInt8]

        public init(descriptor: UInt64, role: ValueRole, tag: ValueTag, payload: UInt64, bytes: [UInt8] = []) {
            self.descriptor = descriptor
            self.role = role
            self.tag = tag
            self.payload = payload
            self.bytes = bytes
        }
    }

    /// What `decode` found at a VALUE record.
    public enum Decoded: Equatable, Sendable {
        case value(Value, records: Int)
        /// Cut (its DATA records missing or interrupted), or of a tag or role this reader does not know:
        /// skipped, `records` of it, with why.
        case malformed(String, records: Int)
    }

    /// The value whose VALUE record is `records[start]`, with the DATA records after it.
    public static func decode(_ records: [TraceRecord], at start: Int) -> Decoded {
        let head = records[start]
        let data = Int((head.word >> dataShift) & dataMax)
        guard let tag = ValueTag(rawValue: UInt32((head.word >> tagShift) & tagMask)),
            let role = ValueRole(rawValue: UInt32((head.word >> roleShift) & roleMask))
        else { return .malformed("a value record of an unknown tag or role", records: 1) }
        var value = Value(descriptor: head.address, role: role, tag: tag, payload: head.time)
        guard tag.isString else {
            return data == 0 ? .value(value, records: 1) : .malformed("a value record with stray data", records: 1)
        }
        let kept = Int(head.time & 0xFFFF_FFFF)
        guard kept <= data * dataBytes, kept > (data - 1) * dataBytes || kept == 0 && data == 0 else {
            return .malformed("a string value whose length and data disagree", records: 1)
        }
        for index in 0 ..< data {
            let at = start + 1 + index
            guard at < records.count, records[at].kind == .aux, (records[at].word >> tagShift) & 0xFFF == 0 else {
                return .malformed("a string value cut short (\(index) of \(data) data records)", records: 1 + index)
            }
            withUnsafeBytes(of: records[at].time.littleEndian) { value.bytes += $0 }
            withUnsafeBytes(of: records[at].word.littleEndian) { value.bytes += $0.prefix(6) }
        }
        value.bytes.removeLast(value.bytes.count - kept)
        return .value(value, records: 1 + data)
    }
}

/// Which part of a call a value is.
public enum ValueRole: UInt32, Sendable {
    case argument = 0
    case result = 1
    case thrown = 2
}

/// What a VALUE record's payload holds.
public enum ValueTag: UInt32, Sendable {
    case int8 = 1
    case int16, int32, int64
    case uint8 = 5
    case uint16, uint32, uint64
    /// The bits in the low 32.
    case float32 = 9
    case float64 = 10
    case bool = 11
    case pointer = 12
    /// `u32 bytes recorded | u32 bytes the string had`; the bytes in DATA records.
    case string = 13
    case character = 14
    case substring = 15
    /// An optional that held nil.
    case nilValue = 16
    /// Not recorded: the descriptor's written type is what is shown.
    case typeOnly = 17
    /// Its label or name is on the redaction list.
    case redacted = 18
    /// `String(describing:)` of a value whose written type `TRAIL_VALUES_DESCRIBE` names: as `string`, shown
    /// unquoted.
    case described = 19

    public var isString: Bool { self == .string || self == .character || self == .substring || self == .described }
}
