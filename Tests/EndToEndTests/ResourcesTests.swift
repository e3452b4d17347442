import Foundation
import Testing
import TrailTestSupport

/// The Resources Sample through the TrailResources plugin: its constants work, a no-change rebuild runs no
/// command, editing one XML file reruns only its command, and a renamed image, a clash and a broken XML file
/// stop the build with the place. Serialized: the tests edit one copy's sources, and each puts them back.
@Suite(.serialized) struct ResourcesTests {
    static let sample: SampleCopy = {
        // A run that died mid-edit may have left a file renamed: start from the Sample's own files.
        try? FileManager.default.removeItem(atPath: Paths.packageRoot + "/.build/test-samples/Resources/Sources")
        let sample = try! SampleCopy("Resources")
        try! sample.build(scratch: "debug", traced: false)
        return sample
    }()
    static var sources: String { sample.directory + "/Sources/Gallery" }
    static var generated: String {
        sample.directory + "/.build/debug/plugins/outputs/resources/Gallery/destination/TrailResourcesPlugin"
    }

    func build() throws -> ProcessResult { try Self.sample.build(scratch: "debug", traced: false, check: false) }

    /// The plugin's commands that ran, by their progress lines (`[4/7] Trail Main.storyboard`).
    func commands(_ build: ProcessResult) -> [String] {
        build.stdout.split(separator: "\n").compactMap { line in
            line.range(of: "] Trail ").map { String(line[$0.upperBound...]) }
        }
    }

    func modificationTimes() throws -> [String: Date] {
        var times: [String: Date] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.generated) {
            times[name] =
                try FileManager.default.attributesOfItem(atPath: Self.generated + "/" + name)[.modificationDate]
                as? Date
        }
        return times
    }

    @Test func theSampleLoadsItsResourcesThroughTheConstants() throws {
        let gallery = try run(Self.sample.products(scratch: "debug") + "/Gallery", [], check: true)
        #expect(
            gallery.stdout == """
                Resources/Images/glyphicons-002-dog.png: 73 bytes, PNG: true
                cat@2x.png and Resources/Images/Star icon.svg
                Today: soup, bread, pie
                MasterObject: found in Main.storyboard
                DetailObject: found in Main.storyboard
                dish-cell: found in Main.storyboard
                showDetail: found in Main.storyboard
                settings: SettingsRoot, switch tag 42

                """)
    }

    @Test func aRebuildWithNoChangeRunsNoCommand() throws {
        _ = try build()  // settle: the first rebuild re-plans
        let before = try modificationTimes()
        let rebuild = try build()
        #expect(rebuild.status == 0)
        #expect(commands(rebuild) == [], "\(rebuild.stdout)")
        #expect(try modificationTimes() == before)
    }

    @Test func editingOneXMLFileRerunsOnlyItsCommand() throws {
        _ = try build()
        let layout = Self.sources + "/Resources/Layouts/Main.storyboard"
        let original = try String(contentsOfFile: layout, encoding: .utf8)
        defer { try? original.write(toFile: layout, atomically: false, encoding: .utf8) }
        let before = try modificationTimes()
        // Written in place: an editor that saves by renaming also touches the folder, and the list command
        // then runs too, finds the same names, and leaves its file alone.
        try original.replacingOccurrences(
            of: #"<tableView id="t1">"#, with: #"<tableView id="t1" identifier="dish-table">"#
        )
        .write(toFile: layout, atomically: false, encoding: .utf8)
        let rebuild = try build()
        try #require(rebuild.status == 0, "\(rebuild.stdout)\(rebuild.stderr)")
        #expect(commands(rebuild) == ["Main.storyboard"], "\(rebuild.stdout)")
        let after = try modificationTimes()
        let storyboard = "TrailResources+Resources+Layouts+Main.storyboard.swift"
        #expect(after[storyboard] != before[storyboard])
        #expect(after.filter { $0.key != storyboard } == before.filter { $0.key != storyboard })
        let text = try String(contentsOfFile: Self.generated + "/" + storyboard, encoding: .utf8)
        #expect(text.contains(#"static let dishTable = "dish-table""#))
    }

    @Test func aRenamedImageFailsTheBuildAtTheLineThatUsedIt() throws {
        let images = Self.sources + "/Resources/Images/"
        try FileManager.default.moveItem(atPath: images + "glyphicons-002-dog.png", toPath: images + "dog.png")
        defer {
            try? FileManager.default.moveItem(atPath: images + "dog.png", toPath: images + "glyphicons-002-dog.png")
        }
        let broken = try build()
        #expect(broken.status != 0)
        #expect(
            (broken.stdout + broken.stderr).contains(
                Self.sources + "/main.swift:4:28: error: type 'Resources.Images' has no member 'glyphicons002Dog'"),
            "\(broken.stdout)")
    }

    @Test func aClashAndABrokenXMLFileAreReportedAtTheirPlace() throws {
        let clash = Self.sources + "/Resources/Images/glyphicons.002.dog.jpg"
        try FileManager.default.copyItem(atPath: Self.sources + "/Resources/Images/cat@2x.png", toPath: clash)
        defer { try? FileManager.default.removeItem(atPath: clash) }
        let clashing = try build()
        #expect(clashing.status != 0)
        #expect(
            (clashing.stdout + clashing.stderr).contains(
                "\(clash):1:1: error: 'Resources/Images/glyphicons.002.dog.jpg' maps to Resources.Images.glyphicons002Dog, "
                    + "as 'Resources/Images/glyphicons-002-dog.png' (\(Self.sources)/Resources/Images/glyphicons-002-dog.png) does; "
                    + "rename one of them"), "\(clashing.stdout)")
        try FileManager.default.removeItem(atPath: clash)

        let settings = Self.sources + "/Resources/Layouts/Settings.xib"
        let original = try String(contentsOfFile: settings, encoding: .utf8)
        defer { try? original.write(toFile: settings, atomically: false, encoding: .utf8) }
        try original.replacingOccurrences(of: "</view>", with: "</vew>").write(
            toFile: settings, atomically: false, encoding: .utf8)
        let broken = try build()
        #expect(broken.status != 0)
        #expect(
            (broken.stdout + broken.stderr).contains(
                "\(settings):6:15: error: the end tag does not match the open element"),
            "\(broken.stdout)")
    }
}

/// `trail resources` by hand: what it writes, when it writes, and how it fails.
@Suite struct ResourcesVerbTests {
    @Test func writesOnceAndFailsWithThePlace() throws {
        let target = Paths.temporaryDirectory("resources-verb")
        try FileManager.default.createDirectory(atPath: target + "/Resources", withIntermediateDirectories: true)
        try "<doc><a identifier=\"first-one\"/></doc>\n".write(
            toFile: target + "/Resources/Main.xib", atomically: true, encoding: .utf8)
        try "{}".write(toFile: target + "/Resources/my data.json", atomically: true, encoding: .utf8)
        let list = target + "/out/TrailResources.swift"
        let xml = target + "/out/Main.swift"
        let files = [target + "/Resources/my data.json", target + "/Resources/Main.xib"]

        try run(Paths.trail, ["resources", "--root", target, "-o", list] + files, check: true)
        try run(Paths.trail, ["resources", "--xml", "--root", target, "-o", xml, files[1]], check: true)
        #expect(Transcript.read(list).contains(#"static let myData = File(path: "Resources/my data.json""#))
        #expect(Transcript.read(xml).contains(#"static let firstOne = "first-one""#))
        let written = try FileManager.default.attributesOfItem(atPath: list)[.modificationDate] as? Date
        Thread.sleep(forTimeInterval: 0.01)
        try run(Paths.trail, ["resources", "--root", target, "-o", list] + files.reversed(), check: true)
        #expect(try FileManager.default.attributesOfItem(atPath: list)[.modificationDate] as? Date == written)

        try "<doc>\n<a identifier=\"x\">\n</doc>\n".write(toFile: files[1], atomically: true, encoding: .utf8)
        let broken = try run(Paths.trail, ["resources", "--xml", "-o", xml, files[1]])
        #expect(broken.status == 1)
        #expect(broken.stderr == "\(files[1]):3:7: error: the end tag does not match the open element\n")
        #expect(Transcript.read(xml).contains("firstOne"))

        let usage = try run(Paths.trail, ["resources", "--xml", "-o", xml])
        #expect(usage.status == 2)
        #expect(usage.stderr == "trail resources: --xml takes one XML file\n")
        #expect(try run(Paths.trail, ["resources", "--help"]).stdout.contains("Usage: trail resources"))
    }
}
