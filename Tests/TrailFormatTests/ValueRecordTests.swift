import Testing
import TrailFormat
import TrailTestSupport

extension CWriterTests {
    /// trail_format.h's value records (issue 41) and their Swift twins (ValueRecord, ValueTag, ValueRole).
    static let values: [String: String] = {
        var twins = [
            "VALUE_TAG_SHIFT": String(ValueRecord.tagShift),
            "VALUE_TAG_MASK": "0x" + String(ValueRecord.tagMask, radix: 16, uppercase: true) + "u",
            "VALUE_ROLE_SHIFT": String(ValueRecord.roleShift),
            "VALUE_ROLE_MASK": "0x" + String(ValueRecord.roleMask, radix: 16, uppercase: true) + "u",
            "VALUE_DATA_SHIFT": String(ValueRecord.dataShift),
            "VALUE_DATA_MAX": String(ValueRecord.dataMax) + "u",
            "VALUE_DATA_BYTES": String(ValueRecord.dataBytes),
            "VALUE_STRING_MAX": "(VALUE_DATA_MAX * VALUE_DATA_BYTES)",
            "VALUE_ROLE_ARGUMENT": String(ValueRole.argument.rawValue),
            "VALUE_ROLE_RESULT": String(ValueRole.result.rawValue),
            "VALUE_ROLE_THROWN": String(ValueRole.thrown.rawValue),
        ]
        let tags: [(String, ValueTag)] = [
            ("INT8", .int8), ("INT16", .int16), ("INT32", .int32), ("INT64", .int64), ("UINT8", .uint8),
            ("UINT16", .uint16), ("UINT32", .uint32), ("UINT64", .uint64), ("FLOAT32", .float32),
            ("FLOAT64", .float64), ("BOOL", .bool), ("POINTER", .pointer), ("STRING", .string),
            ("CHARACTER", .character), ("SUBSTRING", .substring), ("NIL", .nilValue), ("TYPE_ONLY", .typeOnly),
            ("REDACTED", .redacted), ("DESCRIBED", .described),
        ]
        for (name, tag) in tags { twins["VALUE_" + name] = String(tag.rawValue) }
        return twins
    }()
}

/// Decoding VALUE records: whole values, and cut or malformed ones skipped with why, never shown wrong.
@Suite struct ValueRecordTests {
    static let aux = UInt64(TraceRecord.Kind.aux.rawValue) << TraceRecord.kindShift

    static func head(_ tag: ValueTag, _ role: ValueRole = .argument, data: UInt64 = 0, payload: UInt64) -> TraceRecord {
        TraceRecord(
            time: payload,
            word: 0x1234 | UInt64(tag.rawValue) << ValueRecord.tagShift | UInt64(role.rawValue) << ValueRecord.roleShift
                | data << ValueRecord.dataShift | aux)
    }

    /// The DATA records of `bytes`, 14 a record.
    static func data(_ bytes: [UInt8]) -> [TraceRecord] {
        stride(from: 0, to: bytes.count, by: 14).map { start in
            var chunk = Array(bytes[start ..< min(start + 14, bytes.count)])
            chunk += Array(repeating: 0, count: 14 - chunk.count)
            let time = (0 ..< 8).reduce(UInt64(0)) { $0 | UInt64(chunk[$1]) << (8 * $1) }
            let word = (0 ..< 6).reduce(UInt64(0)) { $0 | UInt64(chunk[8 + $1]) << (8 * $1) }
            return TraceRecord(time: time, word: word | aux)
        }
    }

    @Test func scalarsDecodeAndFormat() {
        let int = ValueRecord.decode([Self.head(.int64, payload: UInt64(bitPattern: -30))], at: 0)
        guard case .value(let value, records: 1) = int else {
            Issue.record("\(int)")
            return
        }
        #expect(value.descriptor == 0x1234 && value.role == .argument)
        #expect(ValueText.format(value, type: "Int") == "-30")
        let double = ValueRecord.Value(descriptor: 0, role: .result, tag: .float64, payload: 2.5.bitPattern)
        #expect(ValueText.format(double, type: "Double") == "2.5")
        #expect(ValueText.format(.init(descriptor: 0, role: .argument, tag: .int8, payload: 0xFF), type: "") == "-1")
        #expect(ValueText.format(.init(descriptor: 0, role: .argument, tag: .bool, payload: 1), type: "") == "true")
        #expect(
            ValueText.format(.init(descriptor: 0, role: .argument, tag: .typeOnly, payload: 0), type: "[Int]")
                == "<[Int]>")
        #expect(
            ValueText.format(.init(descriptor: 0, role: .argument, tag: .redacted, payload: 0), type: "")
                == "<redacted>")
        #expect(ValueRecord.isValue(Self.head(.nilValue, payload: 0)))
        #expect(!ValueRecord.isValue(TraceRecord(time: 7, word: 0x55 | Self.aux)))  // a call's AUX
    }

    @Test func stringsDecodeAcrossDataRecordsAndShowCapsAndBadBytes() {
        let text = Array("/etc/app.conf is where it starts".utf8)  // 32 bytes: 3 records
        let records = [Self.head(.string, data: 3, payload: 32 | 32 << 32)] + Self.data(text)
        guard case .value(let value, records: 4) = ValueRecord.decode(records, at: 0) else {
            Issue.record("not decoded")
            return
        }
        #expect(value.bytes == text)
        #expect(ValueText.format(value, type: "String") == "\"/etc/app.conf is where it starts\"")
        // Capped: 14 bytes kept of 40.
        let capped = [Self.head(.string, data: 1, payload: 14 | 40 << 32)] + Self.data(Array(text.prefix(14)))
        if case .value(let cut, _) = ValueRecord.decode(capped, at: 0) {
            #expect(ValueText.format(cut, type: "String") == "\"/etc/app.conf \"…")
        } else {
            Issue.record("capped string not decoded")
        }
        #expect(ValueText.escaped([0x61, 0xFF, 0x22, 0x0A, 0xC3, 0xA9, 0xC3]) == "a\\xff\\\"\\né\\xc3")
    }

    @Test func cutAndMalformedValuesAreSkippedWithANote() {
        let text = Array("twenty-eight bytes of string".utf8)
        // The ring wrapped or the trace was cut after the first DATA record.
        let cut = [Self.head(.string, data: 2, payload: 28 | 28 << 32)] + Self.data(text).prefix(1)
        #expect(
            ValueRecord.decode(Array(cut), at: 0)
                == .malformed("a string value cut short (1 of 2 data records)", records: 2))
        // Another record where DATA should be: a call's ENTER, or a VALUE record.
        let interrupted = [Self.head(.string, data: 2, payload: 28 | 28 << 32), Self.head(.int64, payload: 1)]
        #expect(
            ValueRecord.decode(interrupted, at: 0)
                == .malformed("a string value cut short (0 of 2 data records)", records: 1))
        let lying = [Self.head(.string, data: 1, payload: 28 | 28 << 32)] + Self.data(text)
        #expect(
            ValueRecord.decode(lying, at: 0) == .malformed("a string value whose length and data disagree", records: 1))
        let unknown = TraceRecord(time: 0, word: 0x1234 | 31 << ValueRecord.tagShift | Self.aux)
        #expect(
            ValueRecord.decode([unknown], at: 0) == .malformed("a value record of an unknown tag or role", records: 1))
        #expect(
            ValueRecord.decode([Self.head(.int64, data: 1, payload: 1)], at: 0)
                == .malformed("a value record with stray data", records: 1))
    }

    @Test func descriptorsGiveLabelAndType() {
        #expect(ValueText.label(ofDescriptor: "n: Int") == "n")
        #expect(ValueText.label(ofDescriptor: "from path: String") == "from")
        #expect(ValueText.type(ofDescriptor: "_ x: [String: Int]") == "[String: Int]")
        #expect(ValueText.type(ofDescriptor: "-> Int?") == "Int?")
    }
}
