import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// One attribute value worth a constant, and where its attribute is (1-based line, byte column).
public struct XMLIdentifier: Equatable, Sendable {
    public var attribute: String
    public var value: String
    public var line: Int
    public var column: Int
}

/// The identifiers of one XML file (a storyboard, a XIB, a layout): the values of the chosen attributes, in
/// document order. Foundation's XMLParser (libxml2) checks the file; a file that is not well-formed XML is a
/// `ResourceError` at the parser's line and column.
public enum XMLIdentifiers {
    public static let defaultAttributes = ["storyboardIdentifier", "reuseIdentifier", "identifier", "tag"]

    public static func read(_ path: String, attributes: Set<String>) throws(ResourceError) -> [XMLIdentifier] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ResourceError(path: path, message: "cannot read the file")
        }
        return try parse(data, path: path, attributes: attributes)
    }

    public static func parse(_ data: Data, path: String, attributes: Set<String>) throws(ResourceError)
        -> [XMLIdentifier]
    {
        let collector = Collector(bytes: [UInt8](data), attributes: attributes)
        let parser = XMLParser(data: data)
        parser.delegate = collector
        let finished = parser.parse()
        // libxml2 reports some errors (content after the root element) and still calls the parse a success.
        if let error = collector.firstError {
            throw ResourceError(
                path: path, line: max(error.line, 1), column: max(error.column, 1), message: error.message)
        }
        guard finished, collector.sawRoot else {
            throw ResourceError(path: path, message: "not an XML document: no root element")
        }
        return collector.identifiers
    }
}

/// Receives the parser's callbacks. The parser gives an element's attributes without their places, so the
/// start tag is read again from its `<` (found before the parser's position: a well-formed attribute value
/// holds no `<`).
private final class Collector: NSObject, XMLParserDelegate {
    let bytes: [UInt8]
    let attributes: Set<String>
    let lineStarts: [Int]
    var identifiers: [XMLIdentifier] = []
    var firstError: (line: Int, column: Int, message: String)?
    var sawRoot = false

    init(bytes: [UInt8], attributes: Set<String>) {
        self.bytes = bytes
        self.attributes = attributes
        lineStarts = [0] + bytes.indices.filter { bytes[$0] == UInt8(ascii: "\n") }.map { $0 + 1 }
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName: String?, attributes values: [String: String]
    ) {
        sawRoot = true
        guard values.keys.contains(where: attributes.contains) else { return }
        let tagStart = startOfTag(before: offset(line: parser.lineNumber, column: parser.columnNumber))
        var places = tagStart.map { StartTag.attributeOffsets(in: bytes, from: $0) } ?? []
        // Not found again (it should be): the element's place stands for its attributes.
        if places.isEmpty { places = values.keys.sorted().map { ($0, tagStart ?? 0) } }
        for (name, place) in places where attributes.contains(name) {
            guard let value = values[name] else { continue }
            let (line, column) = lineAndColumn(place)
            identifiers.append(XMLIdentifier(attribute: name, value: value, line: line, column: column))
        }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        guard firstError == nil else { return }
        let code = (parseError as NSError).code
        firstError = (parser.lineNumber, parser.columnNumber, LibXMLError.message(code))
        parser.abortParsing()
    }

    func offset(line: Int, column: Int) -> Int {
        guard line >= 1, line <= lineStarts.count else { return bytes.count }
        return min(lineStarts[line - 1] + max(column - 1, 0), bytes.count)
    }

    func startOfTag(before offset: Int) -> Int? {
        var index = min(offset, bytes.count - 1)
        while index >= 0, bytes[index] != UInt8(ascii: "<") { index -= 1 }
        return index >= 0 ? index : nil
    }

    func lineAndColumn(_ offset: Int) -> (Int, Int) {
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return (low + 1, offset - lineStarts[low] + 1)
    }
}

/// The attribute names of a start tag and where each starts. Only ever given well-formed tags.
enum StartTag {
    static func attributeOffsets(in bytes: [UInt8], from start: Int) -> [(String, Int)] {
        var index = start + 1
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        func skipSpace() { while index < bytes.count, isSpace(bytes[index]) { index += 1 } }
        while index < bytes.count, !isSpace(bytes[index]), bytes[index] != UInt8(ascii: ">"),
            bytes[index] != UInt8(ascii: "/")
        {
            index += 1
        }
        var found: [(String, Int)] = []
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] != UInt8(ascii: ">"), bytes[index] != UInt8(ascii: "/") else {
                return found
            }
            let nameStart = index
            while index < bytes.count, !isSpace(bytes[index]), bytes[index] != UInt8(ascii: "=") { index += 1 }
            let name = String(decoding: bytes[nameStart ..< index], as: UTF8.self)
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { return found }
            index += 1
            skipSpace()
            guard index < bytes.count else { return found }
            let quote = bytes[index]
            index += 1
            while index < bytes.count, bytes[index] != quote { index += 1 }
            index += 1
            found.append((name, nameStart))
        }
    }
}
