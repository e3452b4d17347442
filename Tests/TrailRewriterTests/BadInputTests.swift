import Foundation
import Testing
import TrailDriver

@testable import TrailRewriter

@Suite struct BadInputTests {
    @Test func syntaxErrorNamesFileLineAndColumn() throws {
        let source = Array("func ok() {}\nfunc broken( {\n".utf8)
        let error = #expect(throws: SourceError.self) {
            try InstrumentSettings().instrument(source, path: "Bad.swift", module: "M")
        }
        #expect(error?.path == "Bad.swift")
        #expect(error?.line == 2)
        #expect(error?.description.hasPrefix("Bad.swift:2:") == true)
        #expect(error?.description.contains(": error: ") == true)
    }

    @Test func invalidUTF8IsReportedWithItsLine() throws {
        var source = Array("func a() {}\n// caf".utf8)
        source.append(0xE9)
        source += Array(" \n".utf8)
        let error = #expect(throws: SourceError.self) {
            try InstrumentSettings().instrument(source, path: "Latin1.swift", module: "M")
        }
        #expect(error?.line == 2)
        #expect(error?.message.contains("UTF-8") == true)
    }

    @Test func unbalancedMarkersAreRefused() throws {
        let source = Array("func f() {/*<trail*/let x = 1;\n}\n".utf8)
        #expect(throws: SourceError.self) { try Rewriter.strip(source, path: "F.swift") }
    }

    @Test func unreadableFileIsReported() throws {
        let directory = NSTemporaryDirectory() + "trail-unreadable-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A folder opens but cannot be read as a file, even as root.
        let error = #expect(throws: SourceError.self) { try FileIO.read(directory) }
        #expect(error?.message.contains("cannot read") == true)
    }

    @Test func declarationListsRoundTripAndRewriteOnlyOnChange() throws {
        let directory = NSTemporaryDirectory() + "trail-declarations-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "func stop() -> Never { fatalError() }\n@resultBuilder struct Rows {}\n"
            .write(toFile: directory + "/A.swift", atomically: true, encoding: .utf8)
        try "func go() -> Int { 1 }\ntypealias Done = (Int) -> Void\n@unsafe public final class Cursor {}\n"
            .write(toFile: directory + "/B.swift", atomically: true, encoding: .utf8)
        let found = Declarations.scan([directory + "/A.swift", directory + "/B.swift"], jobs: 2)
        #expect(
            found
                == Declarations(
                    neverReturning: ["stop"], resultBuilders: ["Rows"], functionTypeAliases: ["Done"],
                    unsafeTypes: ["Cursor"]))
        #expect(
            found.text.hasSuffix("\n// never stop\n// builder Rows\n// function-alias Done\n// unsafe-type Cursor\n"))
        #expect(try Declarations(text: found.text, path: "d.txt") == found)

        let list = directory + "/TrailDeclarations.swift"
        try found.write(to: list)
        let before = try FileManager.default.attributesOfItem(atPath: list)[.modificationDate] as? Date
        usleep(20_000)
        try found.write(to: list)
        #expect(try FileManager.default.attributesOfItem(atPath: list)[.modificationDate] as? Date == before)

        let error = #expect(throws: SourceError.self) {
            try Declarations(text: "// never a\nsomething else\n", path: "d.txt")
        }
        #expect(error?.description.hasPrefix("d.txt:2:") == true)
    }

    @Test func atomicWriteKeepsModeAndLeavesNoTemporaryFile() throws {
        let directory = NSTemporaryDirectory() + "trail-atomic-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/script.swift"
        try "func f() {}\n".write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o751)
        try FileIO.writeAtomically(Array("changed\n".utf8), to: path)
        var info = stat()
        stat(path, &info)
        #expect(info.st_mode & 0o7777 == 0o751)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "changed\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["script.swift"])
        // A failed write leaves the original untouched: the folder is not writable for the temporary file.
        let readOnly = directory + "/ro"
        try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: true)
        #expect(throws: SourceError.self) { try FileIO.writeAtomically([1], to: readOnly + "/missing/x.swift") }
    }
}
