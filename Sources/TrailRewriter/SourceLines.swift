import SwiftSyntax

/// The line (1-based) of a UTF-8 offset, from a table of line starts built once per file.
struct SourceLines {
    private var starts: [Int] = [0]
    /// The text itself, for `isBlank`; kept only when asked for.
    private var text: [UInt8] = []

    init(_ bytes: UnsafeBufferPointer<UInt8>, keepingText: Bool = false) {
        starts.reserveCapacity(bytes.count / 32)
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            starts.append(index + 1)
        }
        if keepingText { text = Array(bytes) }
    }

    /// The offset where a line (1-based) starts.
    func start(ofLine line: Int) -> Int { starts[line - 1] }

    /// Whether a range holds only spaces and tabs (the table must keep the text).
    func isBlank(_ range: Range<Int>) -> Bool {
        range.allSatisfy { text[$0] == UInt8(ascii: " ") || text[$0] == UInt8(ascii: "\t") }
    }

    func line(of offset: Int) -> Int {
        var low = 0
        var high = starts.count
        while high - low > 1 {
            let mid = (low + high) / 2
            if starts[mid] <= offset { low = mid } else { high = mid }
        }
        return low + 1
    }

    var count: Int { starts.count }
}
