import Foundation

// Each resource through its constant: a misspelt or renamed file fails the build here, not at run time.
let dog = Resources.Images.glyphicons002Dog
let dogBytes = try dog.data()
print("\(dog.path): \(dogBytes.count) bytes, PNG: \(dogBytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))")
print("\(Resources.Images.cat2x.name).\(Resources.Images.cat2x.extension) and \(Resources.Images.starIcon.path)")

struct Menu: Decodable {
    var title: String
    var dishes: [String]
}
let menu = try JSONDecoder().decode(Menu.self, from: Resources.Data.menu.data())
print("\(menu.title): \(menu.dishes.joined(separator: ", "))")

// Identifiers in the layouts: the compiler checks them against the XML.
let layout = try String(contentsOf: Resources.Other.main.url, encoding: .utf8)
for identifier in [
    Resources.Main.Storyboard.masterObject, Resources.Main.Storyboard.detailObject,
    Resources.Main.Storyboard.dishCell, Resources.Main.Storyboard.showDetail,
] {
    print("\(identifier): \(layout.contains("\"\(identifier)\"") ? "found" : "missing") in Main.storyboard")
}
print("settings: \(Resources.Settings.Xib.settingsRoot), switch tag \(Resources.Settings.Xib._42)")
