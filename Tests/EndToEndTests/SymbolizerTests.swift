import Foundation
import Testing
import TrailFormat
import TrailTestSupport

/// `trail symbolize` on bad input, and its agreement with llvm-symbolizer.
@Suite(.serialized) struct SymbolizerTests {
    /// A real crash log from CrashLab's debug build, and the binary it names.
    /// The binary is named as the block records it (the runtime reads /proc/self/exe, symlinks resolved).
    static let crashed: (log: String, binary: String) = {
        let directory = Paths.temporaryDirectory("symbolizer")
        _ = try! run(
            CrashLabTests.debug, ["--log-dir", directory, "pointer"],
            environment: ["TRAIL_TRACE": "record", "SWIFT_BACKTRACE": "enable=no"])
        let log = Transcript.read(directory + "/CrashLab.log")
        return (log, CrashLog.parse(log).blocks.first!.executable!)
    }()

    /// The line the pointer crash happens on.
    static var line: Int { CrashLabTests.sites["pointer"]! }

    func write(_ text: String, _ name: String) throws -> String {
        let path = Paths.temporaryDirectory("symbolize-input") + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func block(_ log: String) -> String {
        let start = log.range(of: "=== TRAIL CRASH BEGIN v1 ===")!.lowerBound
        let end = log.range(of: "=== TRAIL CRASH END ===\n")!.upperBound
        return String(log[start ..< end])
    }

    @Test func garbageLogsGetAClearError() throws {
        let path = try write(
            "random words\n\u{1}\u{2} binary junk\n=== TRAIL CRASH BEGIN v9 ===\nframe x\n", "garbage.log")
        let result = try run(Paths.trail, ["symbolize", path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(path):3: warning: block format v9 is not supported"))
        #expect(result.stderr.contains("\(path): error: no crash blocks"))
        let missing = try run(Paths.trail, ["symbolize", "/nonexistent/app.log"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("/nonexistent/app.log: cannot read"))
    }

    /// A log folder, as `trail report --crash` takes it: the log with the newest crash, said on stderr.
    @Test func aLogFolderMeansItsNewestCrash() throws {
        let folder = Paths.temporaryDirectory("symbolize-folder")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = try run(
            CrashLabTests.debug, ["--log-dir", folder, "pointer"], environment: ["SWIFT_BACKTRACE": "enable=no"])
        let result = try run(Paths.trail, ["symbolize", folder])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "trail symbolize: reading \(folder)/CrashLab.log, which holds the newest crash in \(folder)"))
        #expect(result.stdout.contains("Crashes.swift:\(Self.line):"))
        let empty = Paths.temporaryDirectory("symbolize-empty")
        let none = try run(Paths.trail, ["symbolize", empty])
        #expect(none.status == 1)
        #expect(none.stderr.contains("\(empty): no crash marker and no log with a crash block"))
    }

    @Test func aTruncatedBlockIsReportedAndTheOthersStillSymbolized() throws {
        let whole = block(Self.crashed.log)
        let cut = String(whole.prefix(whole.count * 2 / 3))  // ends inside the image list
        let path = try write(
            "noise\n" + cut + "\nother program output\n" + whole + "more noise\n" + cut, "truncated.log")
        let result = try run(Paths.trail, ["symbolize", path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("warning: crash block is cut short (a new block begins at line"))
        #expect(result.stderr.contains("warning: crash block is cut short (the log ends first)"))
        #expect(result.stdout.components(separatedBy: "static Crashes.badPointer(_:)").count - 1 == 3)
        #expect(result.stdout.contains("Crash 2 of 3"))
        #expect(result.stdout.contains("(the block is cut short"))
    }

    @Test func missingBinariesAndBuildIDMismatchesAreNamed() throws {
        let text = block(Self.crashed.log)
        let missing = try write(
            text.replacingOccurrences(of: Self.crashed.binary, with: "/nonexistent/CrashLab"), "missing.log")
        let notFound = try run(Paths.trail, ["symbolize", missing], check: true)
        #expect(notFound.stdout.contains("note: /nonexistent/CrashLab: not found (build ID"))
        #expect(!notFound.stdout.contains("static Crashes.badPointer(_:) +"))

        // Another binary at the recorded path: its build ID differs, so it is refused.
        let other = Paths.temporaryDirectory("other") + "/CrashLab"
        try FileManager.default.copyItem(atPath: Paths.trail, toPath: other)
        let mismatch = try write(text.replacingOccurrences(of: Self.crashed.binary, with: other), "mismatch.log")
        let refused = try run(Paths.trail, ["symbolize", mismatch], check: true)
        #expect(refused.stdout.contains("does not match the crash's"))
        #expect(!refused.stdout.contains("static Crashes.badPointer(_:) +"))
    }

    @Test func strippedBinariesGiveNamesAndDebugFoldersGiveLines() throws {
        let text = block(Self.crashed.log)
        let buildID = CrashLog.parse(text).blocks.first!.images.first { $0.path.hasSuffix(Self.crashed.binary) }!
            .buildID!
        let folder = Paths.temporaryDirectory("stripped")
        let stripped = folder + "/CrashLab"
        try run("objcopy", ["--strip-debug", Self.crashed.binary, stripped], check: true)
        let log = try write(text.replacingOccurrences(of: Self.crashed.binary, with: stripped), "stripped.log")
        let names = try run(Paths.trail, ["symbolize", log], check: true)
        #expect(names.stdout.contains("static Crashes.badPointer(_:) + "))
        #expect(!names.stdout.contains("Crashes.swift:\(Self.line)"))
        #expect(names.stdout.contains("no debug info (stripped?)"))

        // The unstripped file in a .build-id folder, found by build ID when the recorded path is gone.
        let debug = Paths.temporaryDirectory("debug-dir")
        let target = "\(debug)/.build-id/\(buildID.prefix(2))/\(buildID.dropFirst(2)).debug"
        try FileManager.default.createDirectory(
            atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.crashed.binary, toPath: target)
        let gone = try write(text.replacingOccurrences(of: Self.crashed.binary, with: "/gone/CrashLab"), "gone.log")
        let found = try run(Paths.trail, ["symbolize", "--debug-dir", debug, gone], check: true)
        #expect(found.stdout.contains("Crashes.swift:\(Self.line):"))
    }

    @Test func aStrippedDeploymentFindsItsSeparateDebugInfo() throws {
        let text = block(Self.crashed.log)
        let buildID = CrashLog.parse(text).blocks.first!.images.first { $0.path.hasSuffix(Self.crashed.binary) }!
            .buildID!
        // Deployed as distributions do it: the debug info split off, the binary stripped, the same build ID.
        let deployed = Paths.temporaryDirectory("deployed")
        try run("objcopy", ["--only-keep-debug", Self.crashed.binary, deployed + "/CrashLab.debug"], check: true)
        try run("objcopy", ["--strip-debug", Self.crashed.binary, deployed + "/CrashLab"], check: true)
        let log = try write(
            text.replacingOccurrences(of: Self.crashed.binary, with: deployed + "/CrashLab"), "deployed.log")

        // In a --debug-dir folder by build ID: it wins over the stripped file at the recorded path.
        let debug = Paths.temporaryDirectory("deployed-debug")
        let target = "\(debug)/.build-id/\(buildID.prefix(2))/\(buildID.dropFirst(2)).debug"
        try FileManager.default.createDirectory(
            atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: deployed + "/CrashLab.debug", toPath: target)
        let byBuildID = try run(Paths.trail, ["symbolize", "--debug-dir", debug, log], check: true)
        #expect(
            byBuildID.stdout.contains("static Crashes.badPointer(_:)")
                && byBuildID.stdout.contains("Crashes.swift:\(Self.line):"),
            "\(byBuildID.stdout.prefix(1500))")
        #expect(!byBuildID.stdout.contains("CrashLab: no debug info"))

        // Named by .gnu_debuglink, beside the binary: found with no option at all.
        let linked = Paths.temporaryDirectory("debuglink")
        try FileManager.default.copyItem(atPath: deployed + "/CrashLab.debug", toPath: linked + "/CrashLab.debug")
        try run(
            "objcopy",
            [
                "--strip-debug", "--add-gnu-debuglink=" + linked + "/CrashLab.debug", Self.crashed.binary,
                linked + "/CrashLab",
            ],
            check: true)
        let linkedLog = try write(
            text.replacingOccurrences(of: Self.crashed.binary, with: linked + "/CrashLab"), "linked.log")
        let byLink = try run(Paths.trail, ["symbolize", linkedLog], check: true)
        #expect(byLink.stdout.contains("Crashes.swift:\(Self.line):"), "\(byLink.stdout.prefix(1500))")

        // Fully stripped, nothing to find: said plainly, with where it looked.
        let bare = Paths.temporaryDirectory("fully-stripped")
        try run("strip", ["--strip-all", "-o", bare + "/CrashLab", Self.crashed.binary], check: true)
        let bareLog = try write(
            text.replacingOccurrences(of: Self.crashed.binary, with: bare + "/CrashLab"), "bare.log")
        let nothing = try run(Paths.trail, ["symbolize", bareLog], check: true)
        #expect(
            nothing.stdout.contains(bare + "/CrashLab: no debug info and no symbol table (fully stripped)"),
            "\(nothing.stdout.suffix(1500))")
        #expect(
            nothing.stdout.contains(
                "looked for a debug file (build ID \(buildID.prefix(2))/\(buildID.dropFirst(2)).debug) in /usr/lib/debug/.build-id"
            ))
    }

    @Test func markdownAndSnippets() throws {
        let path = try write(Self.crashed.log, "crash.log")
        let markdown = try run(Paths.trail, ["symbolize", "--format", "markdown", path], check: true)
        #expect(markdown.stdout.contains("## Crash 1: SIGSEGV (SEGV_MAPERR) at 0x8"))
        #expect(markdown.stdout.contains("### Stack"))
        let snippet = try run(Paths.trail, ["symbolize", "--snippet", "1", path], check: true)
        #expect(snippet.stdout.contains(">    \(Self.line) |         UnsafePointer<Int>(bitPattern: address)!.pointee"))
    }

    @Test func theLeanBinaryGivesTheSameAnswers() throws {
        let path = try write(Self.crashed.log, "lean.log")
        let lean = Paths.buildDirectory + "/trail-symbolize"
        for format in ["text", "json"] {
            let full = try run(Paths.trail, ["symbolize", "--format", format, path], check: true)
            let fast = try run(lean, ["--format", format, path], check: true)
            #expect(fast.stdout == full.stdout)
            #expect(fast.stdout.contains("Crashes.badPointer"))
        }
        // A static executable: no program interpreter, no shared library to load.
        let headers = try run("readelf", ["-lW", "-d", lean], check: true)
        #expect(
            !headers.stdout.contains("INTERP") && !headers.stdout.contains("(NEEDED)"), "\(headers.stdout.prefix(2000))"
        )
        let symbols = try run("nm", [lean], check: true).stdout
        #expect(!symbols.contains("SwiftSyntax") && !symbols.contains("Foundation"))
    }

    @Test func addressModeAgreesWithLLVMSymbolizer() throws {
        // Every 97th byte of the text section: inside functions, inlined code, and padding alike.
        let sections = try run("readelf", ["-SW", Self.crashed.binary], check: true).stdout
        let text = sections.split(separator: "\n").first { $0.contains(" .text ") }!.split(separator: " ")
        let index = text.firstIndex(of: ".text")!
        let start = UInt64(text[index + 2], radix: 16)!
        let size = UInt64(text[index + 4], radix: 16)!
        let addresses = stride(from: start, to: start + size, by: 97).prefix(1500).map { "0x" + String($0, radix: 16) }
        let input = addresses.joined(separator: "\n") + "\n"
        let ours = try run(Paths.trail, ["symbolize", "--obj", Self.crashed.binary], input: input, check: true).stdout
        let llvm = try run(
            Paths.toolchainUsr + "/bin/llvm-symbolizer", ["--obj", Self.crashed.binary], input: input, check: true
        ).stdout
        let readable = try run(Paths.toolchainUsr + "/bin/swift-demangle", [], input: llvm, check: true).stdout
        let a = ours.components(separatedBy: "\n\n")
        let b = readable.components(separatedBy: "\n\n")
        #expect(a.count == b.count)
        // Function, file and line of every frame; for code without line info, llvm-symbolizer names the last
        // STT_FILE before its symbol even when the linker put the symbol there (often crtstuff.c).
        func frames(_ block: String) -> [String] {
            block.split(separator: "\n").enumerated().map { index, line in
                guard index % 2 == 1 else { return String(line) }
                let parts = line.split(separator: ":")
                return parts.count >= 3 && parts[parts.count - 2] != "0"
                    ? parts.dropLast().joined(separator: ":") : "no line"
            }
        }
        let agreeing = zip(a, b).filter { frames($0) == frames($1) }.count
        #expect(Double(agreeing) / Double(a.count) >= 0.99, "\(agreeing) of \(a.count) agree")
        let json = try run(
            Paths.trail, ["symbolize", "--obj", Self.crashed.binary, "--json", addresses[10]], check: true
        ).stdout
        #expect(json.hasPrefix("{\"Address\":\"\(addresses[10])\""))
    }
}
