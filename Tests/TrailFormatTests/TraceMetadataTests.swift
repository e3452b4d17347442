import Testing
import TrailFormat

/// The one place a trace's metadata chunks are taken (`TraceChunk` decoded, `TraceMetadata.absorb`).
@Suite struct TraceMetadataTests {
    static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    static func header(clock: TraceLayout.Clock) -> TraceHeader {
        var bytes = Array(TraceLayout.magic.description.utf8) + le(TraceLayout.version) + le(UInt32(64)) + le(UInt32(7))
        bytes += le(clock.rawValue) + le(UInt64(1_000)) + le(UInt64(100)) + le(UInt64(1_000))
        bytes += le(UInt32(1 << 20)) + le(UInt32(0)) + le(UInt64(0))
        return TraceHeader(bytes)!
    }

    static func chunk(_ type: TraceLayout.Chunk, _ payload: [UInt8]) -> TraceChunk {
        payload.withUnsafeBytes { TraceChunk(type: type.rawValue, payload: $0) }
    }

    @Test func theLatestClockSampleSetsTheRateAndEarlierOnesLeaveIt() {
        var metadata = TraceMetadata(header: Self.header(clock: .cycles))
        metadata.absorb(Self.chunk(.clock, Self.le(UInt64(300)) + Self.le(UInt64(1_400))))
        #expect(metadata.nanosecondsPerTick == 2)
        metadata.absorb(Self.chunk(.clock, Self.le(UInt64(200)) + Self.le(UInt64(1_100))))
        #expect(metadata.nanosecondsPerTick == 2)
        var monotonic = TraceMetadata(header: Self.header(clock: .monotonic))
        monotonic.absorb(Self.chunk(.clock, Self.le(UInt64(300)) + Self.le(UInt64(1_400))))
        #expect(monotonic.nanosecondsPerTick == 1)
    }

    @Test func namesInfoEndAndCut() {
        var metadata = TraceMetadata(header: Self.header(clock: .monotonic))
        let text = Array(SiteName.format(name: "M.f()", file: "M/F.swift", line: 3).utf8)
        metadata.absorb(Self.chunk(.names, Self.le(UInt64(0x40)) + Self.le(UInt32(text.count)) + text))
        metadata.absorb(Self.chunk(.names, Self.le(UInt64(0x40)) + Self.le(UInt32(1)) + [65]))
        #expect(metadata.names[0x40] == "M.f() @ M/F.swift:3")
        metadata.absorb(Self.chunk(.info, Array("app=shop\nnot a line\nexe=/bin/shop\n".utf8)))
        #expect(metadata.info == [TraceInfo.Key.app.rawValue: "shop", TraceInfo.Key.executable.rawValue: "/bin/shop"])
        let policy = Self.le(TraceLayout.Policy.keepLast.rawValue) + Self.le(UInt32(0))
        metadata.absorb(Self.chunk(.cut, policy + Self.le(UInt64(9)) + Self.le(UInt64(144))))
        metadata.absorb(Self.chunk(.cut, policy + Self.le(UInt64(4)) + Self.le(UInt64(64))))
        #expect(metadata.cut?.records == 9)
        #expect(!metadata.complete)
        metadata.absorb(Self.chunk(.end, Self.le(UInt64(10)) + Self.le(UInt64(2))))
        #expect(metadata.complete && metadata.endDropped == 2)
    }

    @Test func aShortPayloadOrAnUnknownTypeIsUnknown() {
        for (type, payload) in [(TraceLayout.Chunk.clock.rawValue, [UInt8](repeating: 0, count: 8)), (99, [])] {
            guard case .unknown(let seen) = payload.withUnsafeBytes({ TraceChunk(type: type, payload: $0) }) else {
                Issue.record("type \(type) was decoded")
                continue
            }
            #expect(seen == type)
        }
    }
}
