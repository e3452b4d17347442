import Foundation
import Testing
import TrailFormat

@Suite struct JSONStringTests {
    @Test func escapesWhatJSONRequiresAndKeepsTheRest() throws {
        let text = "a\"b\\c\nd\re\tf\u{1}g\u{1f}é 🙂"
        #expect(JSONString.quote(text) == #""a\"b\\c\nd\re\tf\u0001g\u001fé 🙂""#)
        let decoded = try JSONSerialization.jsonObject(
            with: Data(JSONString.quote(text).utf8), options: .fragmentsAllowed)
        #expect(decoded as? String == text)
        #expect(JSONString.quote("") == "\"\"")
    }
}
