import Foundation
import Testing
import TrailFormat
import TrailTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Named outputs are written whole or not at all, and a failure names the file and the reason.
@Suite struct AtomicFileTests {
    private func contents(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }

    private func leftovers(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.contains(".trail-") }
    }

    @Test func replacesWholeAndKeepsTheMode() throws {
        let folder = Paths.temporaryDirectory("atomic")
        let path = folder + "/out.json"
        try AtomicFile.replace(path, with: Array("first".utf8), mode: 0o600)
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        chmod(path, 0o640)
        let file = try AtomicFile(path: path)
        try file.write(Array("second".utf8))
        // Until the commit, readers see the old file.
        #expect(contents(path) == "first")
        try file.commit()
        #expect(contents(path) == "second")
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o640)
        #expect(leftovers(folder).isEmpty)
    }

    @Test func anAbandonedWriteLeavesTheOldFile() throws {
        let folder = Paths.temporaryDirectory("atomic")
        let path = folder + "/report.md"
        try AtomicFile.replace(path, with: Array("kept".utf8))
        do {
            let file = try AtomicFile(path: path)
            try file.write(Array("half".utf8))
            // Dropped without a commit, as an export that fails midway is.
        }
        #expect(contents(path) == "kept")
        #expect(leftovers(folder).isEmpty)
    }

    /// `-o /dev/null` or `-o /dev/stdout` is written directly; a symbolic link is followed and stays a link.
    @Test func devicesAreWrittenDirectlyAndLinksStayLinks() throws {
        try AtomicFile.replace("/dev/null", with: Array("gone".utf8))
        var info = stat()
        #expect(lstat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
        let folder = Paths.temporaryDirectory("atomic-link")
        try AtomicFile.replace(folder + "/real.json", with: Array("old".utf8))
        #expect(symlink(folder + "/real.json", folder + "/link.json") == 0)
        try AtomicFile.replace(folder + "/link.json", with: Array("new".utf8))
        #expect(lstat(folder + "/link.json", &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
        #expect(contents(folder + "/real.json") == "new")
        #expect(leftovers(folder).isEmpty)
    }

    @Test func failuresNameTheFileAndTheReason() {
        #expect(throws: AtomicFileError.self) { try AtomicFile.replace("/nonexistent/folder/out.json", with: []) }
        do {
            try AtomicFile.replace("/nonexistent/folder/out.json", with: [])
        } catch {
            #expect(
                error.description
                    == "/nonexistent/folder/out.json: cannot create a temporary file: No such file or directory")
        }
    }
}
