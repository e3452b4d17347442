import Testing
import TrailFormat

@Suite struct SiteNameTests {
    @Test func aSiteIsMadeAndSplitAtItsLastSeparator() {
        #expect(SiteName.format(name: "a @ b", file: "M/F.swift", line: 12) == "a @ b @ M/F.swift:12")
        #expect(SiteName.split("a @ b @ M/F.swift:12") == ("a @ b", "M/F.swift:12"))
        #expect(SiteName.split("no location") == ("no location", ""))
    }
}
