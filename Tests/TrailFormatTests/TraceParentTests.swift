import Testing
import TrailFormat

/// The one `traceparent` parser, by W3C trace context's rules.
@Suite struct TraceParentTests {
    static let good = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

    @Test func version00AndALaterVersionsFirstFields() {
        let parent = TraceParent(" \(Self.good)\t")
        #expect(parent?.spanID == 0xb7ad_6b71_6920_3331 && parent?.sampled == true && parent?.header == Self.good)
        #expect(TraceParent("01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00-later")?.sampled == false)
    }

    @Test(arguments: [
        TraceParentTests.good.uppercased(), "ff" + TraceParentTests.good.dropFirst(2), TraceParentTests.good + "-x",
        "00-00000000000000000000000000000000-b7ad6b7169203331-01",
        "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
    ])
    func whatW3CSaysToIgnoreIsNil(_ header: String) {
        #expect(TraceParent(header) == nil)
    }
}
