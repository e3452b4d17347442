import Foundation
import Testing
import TrailTestSupport

@testable import TrailResources

@Suite struct GeneratedFileTests {
    func inode(_ path: String) -> (ino_t, Int) {
        var info = stat()
        stat(path, &info)
        return (info.st_ino, info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec)
    }

    @Test func writesOnlyWhenTheTextChanges() throws {
        let path = Paths.temporaryDirectory("generated") + "/deep/TrailResources.swift"
        #expect(try GeneratedFile.write("let a = 1\n", to: path))
        let before = inode(path)
        #expect(try !GeneratedFile.write("let a = 1\n", to: path))
        #expect(inode(path) == before)
        #expect(try GeneratedFile.write("let a = 2\n", to: path))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "let a = 2\n")
        // Replaced by a rename: a reader never sees half a file.
        #expect(inode(path).0 != before.0)
        let leftovers = try FileManager.default.contentsOfDirectory(
            atPath: (path as NSString).deletingLastPathComponent)
        #expect(leftovers == ["TrailResources.swift"])
    }
}
