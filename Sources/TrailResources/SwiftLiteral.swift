/// Text placed into generated Swift source: string literals and paths in doc comments, escaped.
enum SwiftLiteral {
    /// A Swift string literal: quotes, backslashes and control characters escaped.
    static func literal(_ text: String) -> String { String(reflecting: text) }

    /// A path in a `///` comment, on one line.
    static func comment(_ text: String) -> String {
        "`" + text.replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n") + "`"
    }
}
