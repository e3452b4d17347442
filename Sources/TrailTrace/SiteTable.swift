import TrailFormat

/// Sites by index, shared by the processes of one reading so that totals merge by function.
public final class SiteTable {
    public private(set) var sites: [Site] = []
    /// Per site, the first site with its name: overloads that print alike (`f(_:)` taking an Int or a String)
    /// share one report row, so a call of one inside the other is not outermost for that row.
    private(set) var sameName: [Int32] = []
    /// Per site, the site string it was made from, for a second table's sites to be found in this one.
    private(set) var texts: [String] = []
    private var byText: [String: Int32] = [:]
    private var byName: [String: Int32] = [:]

    public init() {}

    func index(_ text: String) -> Int32 {
        if let index = byText[text] { return index }
        let index = Int32(sites.count)
        let site = Site(text)
        sites.append(site)
        texts.append(text)
        byText[text] = index
        sameName.append(byName[site.name] ?? index)
        if byName[site.name] == nil { byName[site.name] = index }
        return index
    }

    public subscript(index: Int32) -> Site { sites[Int(index)] }
}
