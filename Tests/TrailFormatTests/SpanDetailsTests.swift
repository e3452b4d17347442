import Testing
import TrailFormat

/// SPAN chunks' details: what the runtime writes is what viewers read, and a cut or hostile chunk costs only
/// what follows the cut.
@Suite struct SpanDetailsTests {
    static var full: SpanDetails {
        var details = SpanDetails()
        details.name = "GET /items/{id} ünïcode"
        details.kind = .server
        details.remoteParent = SpanDetails.Remote(
            traceID: Array(1 ... 16), spanID: 0x00f0_67aa_0ba9_02b7, sampled: true)
        details.localParent = 1 << 63 | 42
        details.attributes = [
            SpanDetails.Attribute("s", .string("a \"quoted\"\nline")), SpanDetails.Attribute("i", .int(-7)),
            SpanDetails.Attribute("d", .double(2.5)), SpanDetails.Attribute("b", .bool(true)),
            SpanDetails.Attribute("ss", .strings(["x", ""])), SpanDetails.Attribute("is", .ints([1, .max, .min])),
            SpanDetails.Attribute("ds", .doubles([0.5, -1])), SpanDetails.Attribute("bs", .bools([false, true])),
        ]
        details.events = [
            SpanDetails.Event(
                name: "exception", time: 1_700_000_000_123_456_789,
                attributes: [SpanDetails.Attribute("exception.type", .string("E"))])
        ]
        details.links = [
            SpanDetails.Remote(
                traceID: Array(repeating: 9, count: 16), spanID: 5, sampled: false,
                attributes: [SpanDetails.Attribute("reason", .string("retry"))])
        ]
        details.status = SpanDetails.Status(code: 2, message: "declined")
        return details
    }

    @Test func everyFieldSurvivesTheRoundTrip() {
        let encoded = Self.full.encoded()
        let decoded = encoded.withUnsafeBytes { SpanDetails(decoding: $0) }
        #expect(decoded == Self.full)
    }

    @Test func aCutChunkKeepsTheFieldsBeforeTheCut() {
        let encoded = Self.full.encoded()
        for length in 0 ..< encoded.count {
            let decoded = encoded.prefix(length).withUnsafeBytes { SpanDetails(decoding: $0) }
            // Fields come whole or not at all, in order.
            if let name = decoded.name { #expect(name == Self.full.name) }
            #expect(decoded.attributes.count <= Self.full.attributes.count)
            #expect(Array(Self.full.attributes.prefix(decoded.attributes.count)) == decoded.attributes)
        }
    }

    @Test func hostileCountsAreRefusedWithoutAllocating() {
        // An attribute list claiming 2^32-1 entries in a few bytes.
        var bytes: [UInt8] =
            [6] + [1, 0, 0, 0] + Array("e".utf8) + [0, 0, 0, 0, 0, 0, 0, 0] + [0xff, 0xff, 0xff, 0xff]
        bytes += [0, 0]
        let decoded = bytes.withUnsafeBytes { SpanDetails(decoding: $0) }
        #expect(decoded.events.isEmpty)
        let unknown: [UInt8] = [200, 1, 2, 3]
        #expect(unknown.withUnsafeBytes { SpanDetails(decoding: $0) } == SpanDetails())
    }

    @Test func theEndsDetailsCompleteTheStarts() {
        var start = SpanDetails()
        start.kind = .client
        start.attributes = [SpanDetails.Attribute("early", .int(1)), SpanDetails.Attribute("both", .int(1))]
        var end = SpanDetails()
        end.name = "renamed"
        end.attributes = [SpanDetails.Attribute("both", .int(2))]
        end.status = SpanDetails.Status(code: 1)
        let merged = start.merged(with: end)
        #expect(merged.kind == .client)
        #expect(merged.name == "renamed")
        #expect(merged.attributes == [SpanDetails.Attribute("both", .int(2)), SpanDetails.Attribute("early", .int(1))])
        #expect(merged.status == SpanDetails.Status(code: 1))
    }
}
