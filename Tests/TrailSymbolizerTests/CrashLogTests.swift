import Foundation
import Testing
import TrailFormat

@testable import TrailSymbolizer

/// The crash block parser on hand-made logs: every line kind, CRLF endings, foreign lines, cut blocks, garbage.
@Suite struct CrashLogTests {
    static let block = """
        2026-01-01T00:00:00Z info app: starting\r
        === TRAIL CRASH BEGIN v1 ===\r
        time: 2026-01-01T00:00:01.5Z\r
        app: Demo 2.0\r
        pid: 4242\r
        exe: /opt/demo/bin/Demo\r
        signal: 11 SIGSEGV code 1 SEGV_MAPERR address 0x8\r
        thread: 4243 worker pool\r
        frame 0 0x00005622BB2C17B4 pc\r
        frame   1   0x00005622bb2c17d7   ra\r
        another thread's line in the middle\r
        image 0x5622bb2b2000 0x5622bb368ef0 9f5f4e04 /opt/demo/bin/My Demo\r
        image 0x7f9857a00000 0x7f98581142a8 - /lib/libc.so.6\r
        trace: record\r
        crumb -12.5 enter Demo.run() @ Demo/main.swift:3\r
        open 0 Demo.run() @ Demo/main.swift:3\r
        === TRAIL CRASH END ===\r
        after
        """

    @Test func readsEveryLineKind() throws {
        let (blocks, problems) = CrashLog.parse(Self.block)
        #expect(problems.isEmpty)
        let block = try #require(blocks.first)
        #expect(blocks.count == 1 && block.complete && block.line == 2 && block.kind == .crash)
        #expect(block.time == "2026-01-01T00:00:01.5Z" && block.app == "Demo 2.0" && block.pid == "4242")
        #expect(block.executable == "/opt/demo/bin/Demo" && block.trace == "record")
        #expect(block.signal?.number == 11 && block.signal?.name == "SIGSEGV" && block.signal?.code == "SEGV_MAPERR")
        #expect(block.signal?.address == "0x8")
        #expect(block.thread?.tid == "4243" && block.thread?.name == "worker pool")
        #expect(block.frames.map(\.address) == [0x5622_bb2c_17b4, 0x5622_bb2c_17d7])
        #expect(block.frames.map(\.isReturnAddress) == [false, true] && block.frames.map(\.index) == [0, 1])
        #expect(block.images.map(\.path) == ["/opt/demo/bin/My Demo", "/lib/libc.so.6"])
        #expect(block.images.map(\.buildID) == ["9f5f4e04", nil])
        #expect(block.images.first?.base == 0x5622_bb2b_2000 && block.images.first?.end == 0x5622_bb36_8ef0)
        #expect(
            block.breadcrumbs.first?.offset == "-12.5"
                && block.breadcrumbs.first?.site == "Demo.run() @ Demo/main.swift:3")
        #expect(block.openCalls == ["Demo.run() @ Demo/main.swift:3"])
        #expect(
            block.foreignLines.map(\.0) == [11] && block.foreignLines.first?.1 == "another thread's line in the middle")
    }

    @Test func cutBlocksAndUnknownVersions() {
        let whole = Self.block.replacingOccurrences(of: "\r", with: "")
        let cut = whole.components(separatedBy: "frame   1")[0]
        let (blocks, problems) = CrashLog.parse(
            cut + "=== TRAIL ERROR BEGIN v2 ===\nframe 0 0x1 pc\n" + whole + "\n" + cut)
        #expect(blocks.count == 3)
        #expect(blocks.map(\.complete) == [false, true, false])
        #expect(blocks.map { $0.frames.count } == [1, 2, 1])
        #expect(
            problems.map(\.description) == [
                "line 2: crash block is cut short (a new block begins at line 10)",
                "line 10: block format v2 is not supported (this trail reads v1); skipped",
                "line 31: crash block is cut short (the log ends first)",
            ])
    }

    @Test func malformedLinesAreForeignNotFatal() {
        let lines = [
            "frame x 0x10 pc", "frame 1 10 pc", "frame 1 0x12345678123456789 pc", "frame 1 0xZZ",
            "image 0x1 0x2 -", "crumb 1 enter", "open 1", "colour: blue", "time", "",
        ]
        let text = "=== TRAIL CRASH BEGIN v1 ===\n" + lines.joined(separator: "\n") + "\n=== TRAIL CRASH END ==="
        let (blocks, problems) = CrashLog.parse(text)
        #expect(problems.isEmpty && blocks.count == 1)
        #expect(blocks.first?.frames.isEmpty == true && blocks.first?.images.isEmpty == true)
        #expect(blocks.first?.foreignLines.map(\.1) == lines)
    }

    /// Made-up blocks the symbolizer and the formats must survive: a return address at an image's very
    /// base, and a pid that is no number (JSON keeps it a string).
    @Test func oddBlocksSymbolizeAndRender() throws {
        let text =
            "=== TRAIL CRASH BEGIN v1 ===\npid: 12 x\nframe 0 0x1000 ra\nframe 1 0x1800 pc\n"
            + "image 0x1000 0x2000 - /bin/true\n=== TRAIL CRASH END ==="
        let block = try #require(CrashLog.parse(text).blocks.first)
        let crash = CrashSymbolizer().symbolize(block)
        #expect(crash.frames.count == 2 && crash.frames.allSatisfy { $0.image == "true" })
        let json = CrashOutputFormat.json.render([crash], .init())
        let parsed = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]]
        #expect(parsed?.first?["pid"] as? String == "12 x")
        #expect(CrashOutputFormat.text.render([crash], .init()).contains("  1 0x0000000000001800 true"))
    }

    @Test func decimalsOfEveryWidth() {
        var out: [UInt8] = []
        for value: Int in [0, 7, -7, 1_234_567, Int.max, Int.min] {
            out = []
            appendDecimal(value, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == String(value))
        }
        out = []
        appendDecimal(UInt64.max, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "18446744073709551615")
    }

    @Test func garbageNeverCrashes() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0 ..< 200 {
            var bytes = Array("=== TRAIL CRASH BEGIN v1 ===\nframe 0 0x10 pc\nimage 0x0 0x100 - /x\n".utf8)
            for _ in 0 ..< Int.random(in: 0 ..< 400, using: &generator) {
                bytes.append(UInt8.random(in: 0 ... 255, using: &generator))
            }
            _ = CrashLog.parse(String(decoding: bytes, as: UTF8.self))
        }
        #expect(CrashLog.parse("").blocks.isEmpty)
        #expect(CrashLog.parse("=== TRAIL CRASH BEGIN v1 ===").blocks.count == 1)
    }
}
