import Foundation
import Testing
import TrailTestSupport

@testable import TrailResources

@Suite struct ResourceListTests {
    /// A target folder holding `files` (relative paths), with their absolute paths.
    func target(_ files: [String]) throws -> (root: String, paths: [String]) {
        let root = Paths.temporaryDirectory("resources")
        for file in files {
            let path = root + "/" + file
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data("x".utf8).write(to: URL(fileURLWithPath: path))
        }
        return (root, files.map { root + "/" + $0 })
    }

    func errors(_ body: () throws(ResourceErrors) -> Void) -> [String] {
        do { try body() } catch { return error.errors.map(\.description) }
        return []
    }

    @Test func filesAreGroupedByKindAndSorted() throws {
        let (root, paths) = try target([
            "Resources/glyphicons-002-dog.png", "Resources/config.json", "Resources/Main.storyboard",
            "Resources/icons/cat.svg", "Resources/notes.md",
        ])
        let list = try ResourceList(paths: paths, root: root, xmlExtensions: ["storyboard"])
        #expect(
            list.entries.map { "\($0.kind.rawValue).\($0.constant)" }
                == ["Other.main", "Data.config", "Images.glyphicons002Dog", "Images.cat", "Other.notes"])
        let source = list.source
        #expect(
            source.contains(
                """
                    enum Images {
                        /// `Resources/icons/cat.svg`
                        static let cat = File(path: "Resources/icons/cat.svg", name: "cat", extension: "svg")
                        /// `Resources/glyphicons-002-dog.png`
                        static let glyphicons002Dog = File(path: "Resources/glyphicons-002-dog.png", name: "glyphicons-002-dog", extension: "png")
                    }
                """))
        #expect(
            source.contains(
                "static let config = File(path: \"Resources/config.json\", name: \"config\", extension: \"json\")"))
        #expect(source.contains("    enum Main {}\n"))
    }

    @Test func outputIsTheSameWhateverTheOrderOfTheFiles() throws {
        let (root, paths) = try target(
            (0 ..< 40).map { "Resources/f\($0 * 7919 % 97).png" } + ["Resources/a.xml", "Resources/b.json"])
        let first = try ResourceGeneration.listSource(paths, root: root, xmlExtensions: ["xml"])
        for _ in 0 ..< 5 {
            #expect(try ResourceGeneration.listSource(paths.shuffled(), root: root, xmlExtensions: ["xml"]) == first)
        }
    }

    @Test func twoFilesWithOneConstantClashAtTheSecond() throws {
        let (root, paths) = try target([
            "Resources/a/dog.png", "Resources/b/dog.jpg", "Resources/my-file.txt", "Resources/my file.json",
        ])
        #expect(
            errors { () throws(ResourceErrors) in _ = try ResourceList(paths: paths, root: root, xmlExtensions: []) }
                == [
                    "\(root)/Resources/b/dog.jpg:1:1: error: 'Resources/b/dog.jpg' maps to Resources.Images.dog, as 'Resources/a/dog.png' "
                        + "(\(root)/Resources/a/dog.png) does; rename one of them",
                    "\(root)/Resources/my-file.txt:1:1: error: 'Resources/my-file.txt' maps to Resources.Data.myFile, as "
                        + "'Resources/my file.json' (\(root)/Resources/my file.json) does; rename one of them",
                ])
    }

    @Test func xmlFilesWhoseEnumsClashOrShadowAGroup() throws {
        let (root, paths) = try target([
            "Resources/one/Main.storyboard", "Resources/two/main.storyboard", "Resources/Images.xml",
        ])
        let found = errors { () throws(ResourceErrors) in
            _ = try ResourceList(paths: paths, root: root, xmlExtensions: ["storyboard", "xml"])
        }
        // The second storyboard clashes as a file first; its enum is not looked at.
        #expect(found.count == 2)
        #expect(found.contains { $0.hasPrefix("\(root)/Resources/Images.xml:1:1: error: 'Images.xml' would name") })
        #expect(
            found.contains {
                $0.hasPrefix(
                    "\(root)/Resources/two/main.storyboard:1:1: error: 'Resources/two/main.storyboard' maps to Resources.Other.main"
                )
            })
    }

    @Test func unreadableMissingAndUndeclaredFilesAreErrors() throws {
        let (root, paths) = try target(["Resources/locked.png", "Resources/loose.png"])
        chmod(paths[0], 0)
        defer { chmod(paths[0], 0o644) }
        let found = errors { () throws(ResourceErrors) in
            _ = try ResourceList(
                paths: [paths[0], root + "/Resources/gone.png"], root: root, xmlExtensions: [], undeclared: [paths[1]])
        }
        #expect(found.contains("\(root)/Resources/gone.png:1:1: error: cannot read the resource: no such file"))
        #expect(
            found.contains { $0.hasPrefix("\(root)/Resources/loose.png:1:1: error: not among the target's resources") })
        // Root reads everything: the permission check means something only for other users.
        if getuid() != 0 {
            #expect(found.contains("\(paths[0]):1:1: error: cannot read the resource: permission denied"))
        }
    }

    @Test func aCopiedFolderStandsForItsFiles() throws {
        let (root, _) = try target(["Assets/sub/a.png", "Assets/b.json"])
        let list = try ResourceList(paths: [root + "/Assets"], root: root, xmlExtensions: [])
        #expect(list.entries.map(\.relativePath) == ["Assets/b.json", "Assets/sub/a.png"])
    }
}
