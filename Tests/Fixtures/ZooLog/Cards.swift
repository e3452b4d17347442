// A result builder and a protocol whose requirement carries it, like SwiftUI's `View.body`: a conforming type
// in another module writes its witness without any attribute, and the builder still transforms it.
@resultBuilder
public enum LinesBuilder {
    public static func buildExpression(_ line: String) -> [String] { [line] }
    public static func buildBlock(_ parts: [String]...) -> [String] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [String]?) -> [String] { part ?? [] }
    public static func buildEither(first: [String]) -> [String] { first }
    public static func buildEither(second: [String]) -> [String] { second }
    public static func buildArray(_ parts: [[String]]) -> [String] { parts.flatMap { $0 } }
}

public protocol Card {
    @LinesBuilder var lines: [String] { get }
}

extension Card {
    public func render() -> String { lines.joined(separator: "|") }
}
