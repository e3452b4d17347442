/// Messages for libxml2's error numbers (its `xmlParserErrors`), which FoundationXML passes on as the error
/// code with no text of its own.
enum LibXMLError {
    static func message(_ code: Int) -> String {
        messages[code] ?? "not well-formed XML (libxml2 error \(code))"
    }

    static let messages: [Int: String] = [
        3: "no XML document starts here",
        4: "the document is empty",
        5: "extra content after the root element",
        6: "invalid hexadecimal character reference", 7: "invalid decimal character reference",
        8: "invalid character reference", 9: "a character that XML does not allow",
        22: "'&' without an entity name", 23: "entity reference without its ';'",
        26: "undeclared entity", 31: "unknown encoding", 32: "unsupported encoding",
        38: "'<' in an attribute value",
        39: "attribute value without its opening quote", 40: "attribute value without its closing quote",
        41: "attribute without a value", 42: "attribute given twice in one element",
        43: "quoted value expected", 44: "unfinished quoted value", 45: "unfinished comment",
        46: "processing instruction without a target", 47: "unfinished processing instruction",
        57: "unfinished XML declaration", 61: "unfinished DOCTYPE", 62: "']]>' outside CDATA",
        63: "unfinished CDATA section", 64: "a name starting with 'xml' is reserved",
        65: "space expected", 68: "a name expected", 72: "'<' expected", 73: "'>' expected",
        74: "'</' expected", 75: "'=' expected", 76: "the end tag does not match the open element",
        77: "an element is not closed before the end of the file",
    ]
}
