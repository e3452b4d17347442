import Testing

@testable import TrailResources

/// The naming rules of Docs/resources.md, one row each.
@Suite struct NamingTests {
    @Test(arguments: [
        ("glyphicons-002-dog", "glyphicons002Dog"),
        ("MasterObject", "masterObject"),
        ("URLCache", "urlCache"),
        ("ID", "id"),
        ("already camelCase", "alreadyCamelCase"),
        ("snake_case_kept", "snake_case_kept"),
        ("2x", "_2x"),
        ("007 license to kill", "_007LicenseToKill"),
        ("icon@2x", "icon2x"),
        ("app.icon.large", "appIconLarge"),
        ("  spaced  out ", "spacedOut"),
        ("café", "café"),
        ("Ärger", "ärger"),
        ("日本語", "日本語"),
        ("a\u{200B}b", "aB"),
        ("default", "`default`"),
        ("Self", "`self`"),
        ("class", "`class`"),
        ("_", "`_`"),
        ("---", "_2D2D2D"),
        ("", "`_`"),
    ])
    func constantNames(_ input: String, _ expected: String) {
        #expect(SwiftName.constant(input) == expected)
    }

    @Test(arguments: [
        ("Main", "Main"), ("storyboard", "Storyboard"), ("main-menu", "MainMenu"), ("2-up", "_2Up"),
        ("Type", "Type_"), ("protocol", "Protocol_"), ("self", "`Self`"), ("any", "`Any`"),
    ])
    func typeNames(_ input: String, _ expected: String) {
        #expect(SwiftName.type(input) == expected)
    }

    @Test func everyNameIsAnIdentifier() {
        for input in ["😀 party", "x+y=z", "a.b-c d", "ẞig", "9", "Ω", "a\u{301}"] {
            let name = SwiftName.constant(input)
            let scalars = Array(name.unicodeScalars)
            #expect(SwiftName.isIdentifierHead(scalars[0]) || scalars[0] == "`", "\(input) → \(name)")
            #expect(scalars.allSatisfy { SwiftName.isIdentifierCharacter($0) || $0 == "`" }, "\(input) → \(name)")
        }
    }
}
