import Testing
import TrailDriver

/// `trail test` maps the copy's paths back to the user's as output streams: whatever the chunks, the output is the
/// whole text with every copy path replaced, and nothing but a possible path's start is held back.
@Suite struct PathMapperTests {
    static let copy = "/home/u/app/.build/trail-shadow/package"
    static let user = "/home/u/app"
    static let text = """
        /home/u/app/.build/trail-shadow/package/Tests/AppTests/CalcTests.swift:5: error: XCTAssertEqual failed
        near miss /home/u/app/.build/trail-shadow/pack and /home/u/app/.build/trail-shadow/package/Sources/A.swift:9
        /home/u/app/.build/trail-shadow/package
        """
    static let expected = """
        /home/u/app/Tests/AppTests/CalcTests.swift:5: error: XCTAssertEqual failed
        near miss /home/u/app/.build/trail-shadow/pack and /home/u/app/Sources/A.swift:9
        /home/u/app
        """

    static func mapped(_ text: String, chunk size: Int) -> String {
        var mapper = PathMapper(from: copy, to: user)
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        var start = 0
        while start < bytes.count {
            let end = min(start + size, bytes.count)
            output += bytes[start ..< end].withUnsafeBytes { mapper.map($0) }
            start = end
        }
        output += mapper.finish()
        return String(decoding: output, as: UTF8.self)
    }

    @Test(arguments: [1, 2, 3, 7, 39, 40, 41, 64, 4096])
    func everyChunkingGivesTheWholeTextMapped(chunk: Int) {
        #expect(Self.mapped(Self.text, chunk: chunk) == Self.expected)
    }

    /// A path split at every possible point between two chunks.
    @Test func aPathCutAtAnyByteIsStillMapped() {
        let bytes = Array(Self.text.utf8)
        for cut in 0 ... bytes.count {
            var mapper = PathMapper(from: Self.copy, to: Self.user)
            var output = bytes[..<cut].withUnsafeBytes { mapper.map($0) }
            output += bytes[cut...].withUnsafeBytes { mapper.map($0) }
            output += mapper.finish()
            #expect(String(decoding: output, as: UTF8.self) == Self.expected, "cut at \(cut)")
        }
    }

    /// Only what may still become a path is held: a chunk ending mid-path is all written but that tail.
    @Test func onlyAPossiblePathStartIsHeldBack() {
        var mapper = PathMapper(from: Self.copy, to: Self.user)
        let out = Array("compiling /home/u/app/.bu".utf8).withUnsafeBytes { mapper.map($0) }
        #expect(String(decoding: out, as: UTF8.self) == "compiling ")
        #expect(String(decoding: mapper.finish(), as: UTF8.self) == "/home/u/app/.bu")
    }

    @Test func linesAreSplitAndAnOverlongLineIsSkipped() {
        var splitter = LineSplitter(limit: 8)
        var lines: [String] = []
        splitter.feed(Array("short\nmuch too long a line\nlast".utf8)) { lines.append($0) }
        splitter.feed(Array(" one\n".utf8)) { lines.append($0) }
        #expect(lines == ["short", "last one"])
    }
}
