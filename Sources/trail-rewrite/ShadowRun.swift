import Foundation
import TrailCommandLine
import TrailDriver
import TrailRewriter

/// What `trail test` and `trail run` share: finding swift-trail's own package, keeping the shadow copy, running
/// SwiftPM and the programs it builds with their output going straight to the terminal, and a fresh trace folder.
enum ShadowRun {
    /// swift-trail's package folder, which the copy depends on: TRAIL_PACKAGE, else the checkout this binary was
    /// built in (`<package>/.build/<triple>/<configuration>/`), else `<prefix>/share/swift-trail` beside an
    /// installed `<prefix>/bin`.
    static func trailPackage() throws -> String {
        if let given = ProcessInfo.processInfo.environment["TRAIL_PACKAGE"], !given.isEmpty {
            guard isTrailPackage(given) else {
                throw VerbFailure("TRAIL_PACKAGE=\(given) is not a swift-trail package folder")
            }
            // Absolute: the copy's manifest and the runtime package's links name it from elsewhere.
            return URL(fileURLWithPath: given).resolvingSymlinksInPath().standardizedFileURL.path
        }
        var folder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let installed = folder.deletingLastPathComponent().appendingPathComponent("share/swift-trail").path
        if isTrailPackage(installed) { return installed }
        while folder.path != "/" {
            if isTrailPackage(folder.path) { return folder.path }
            folder.deleteLastPathComponent()
        }
        throw VerbFailure(
            "cannot find swift-trail's package (this trail was not built in a checkout, nor installed with "
                + "'make install'); set TRAIL_PACKAGE to a swift-trail folder")
    }

    static func isTrailPackage(_ folder: String) -> Bool {
        guard let text = try? String(contentsOfFile: folder + "/Package.swift", encoding: .utf8) else { return false }
        return text.contains("name: \"swift-trail\"")
    }

    /// The copy, brought up to date and instrumented, with a line saying what changed.
    static func prepare(package: String, verb: String, values: Bool = false) throws -> ShadowPackage {
        Interruption.install()
        let trail = try trailPackage()
        return try reportingInputErrors { () throws(SourceError) -> ShadowPackage in
            let shadow = try ShadowPackage(package: package)
            try shadow.lock {
                printError(
                    "trail \(verb): another trail test or trail run is using \(relative(shadow.root)); waiting for it")
            }
            printError("trail \(verb): copying \(shadow.original) to \(relative(shadow.copy))")
            let changes = try shadow.sync(trail: trail)
            try shadow.seedResolution()
            printError("trail \(verb): instrumenting the copy")
            let report = try shadow.instrument(changes, values: values)
            let copied = changes.copied.count
            printError(
                "trail \(verb): \(copied == 0 ? "no file changed" : "\(copied) file\(copied == 1 ? "" : "s") copied"), "
                    + "\(report.changed) instrumented (\(report.bodies) bodies) in \(relative(shadow.copy))")
            if !report.errors.isEmpty {
                throw SourceError(
                    path: shadow.original,
                    message: "\(report.errors.count) file(s) could not be instrumented (see above)")
            }
            try shadow.commit(changes)
            return shadow
        }
    }

    /// Runs a program (found on PATH) with its output passed on as it comes, the copy's paths mapped to the
    /// package's, and returns its exit status (128 + signal when a signal ended it). The user's own `TRAIL_*`
    /// settings reach it; `environment` overrides only what the run must own.
    static func run(
        _ arguments: [String], _ shadow: ShadowPackage, environment: [String: String] = [:],
        outputToStandardError: Bool = false, interactive: Bool = false, onLine: ((String) -> Void)? = nil
    ) throws -> Int32 {
        var options = ChildProcess.Options()
        options.environment = environment
        options.mapping = (shadow.copy, shadow.original)
        options.outputToStandardError = outputToStandardError
        options.interactive = interactive
        options.onLine = onLine
        return try ChildProcess.run(arguments, options)
    }

    /// `swift build` of the instrumented copy. Its progress goes to standard error, so that standard output holds
    /// only what the program or the tests print, and the summary.
    static func build(_ shadow: ShadowPackage, _ extra: [String]) throws -> Int32 {
        try run(
            ["swift", "build", "--package-path", shadow.copy, "--scratch-path", shadow.scratch]
                + shadow.resolutionArguments + extra, shadow,
            outputToStandardError: true)
    }

    /// A new folder for this run's traces, `.build/trail-shadow/traces/<time>`, which `traces/latest` then
    /// links to; the five newest runs are kept.
    static func traceFolder(_ shadow: ShadowPackage) throws -> String {
        let parent = shadow.root + "/traces"
        let folder = try makeFreshFolder(in: parent).get()
        // The new folder is never pruned, whatever its name sorts as (a clock set back), nor the link.
        let name = (folder as NSString).lastPathComponent
        let runs = ((try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [])
            .filter { $0 != name && !$0.hasPrefix(latest) }.sorted()
        for old in runs.dropLast(4) { try? FileManager.default.removeItem(atPath: parent + "/" + old) }
        let link = parent + "/" + latest
        let temporary = link + ".\(getpid()).tmp"
        unlink(temporary)
        guard symlink((folder as NSString).lastPathComponent, temporary) == 0, rename(temporary, link) == 0 else {
            throw VerbFailure("cannot link \(link) to \(folder): \(String(cString: strerror(errno)))")
        }
        return folder
    }

    /// The folder `traces/latest` links to (the last run's traces), if any.
    static func latestRun(_ shadow: ShadowPackage) -> String? {
        let parent = shadow.root + "/traces"
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: parent + "/" + latest) else {
            return nil
        }
        let folder = target.hasPrefix("/") ? target : parent + "/" + target
        return FileManager.default.fileExists(atPath: folder) ? folder : nil
    }

    /// The link to the newest run's traces, in `.build/trail-shadow/traces`.
    static let latest = "latest"

    /// The recording settings for a run into the newest trace folder. The same text every run: SwiftPM plans a
    /// build again, and loads every manifest again, when its environment changed.
    static func recording(_ shadow: ShadowPackage) -> [String: String] {
        ["TRAIL_TRACE": "record", "TRAIL_TRACE_FILE": shadow.root + "/traces/" + latest + "/%e-%p.trace"]
    }

    /// The traces in `folder`: their count and total size.
    static func traces(in folder: String) -> (count: Int, bytes: Int) {
        var count = 0
        var bytes = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasSuffix(".trace")
        {
            count += 1
            bytes += ((try? FileManager.default.attributesOfItem(atPath: folder + "/" + name))?[.size] as? Int) ?? 0
        }
        return (count, bytes)
    }

    /// `trail` (the viewers), beside this binary.
    static var viewer: String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("trail").path
    }

    /// Runs a viewer and prints at most `lines` lines of what it writes, then a note of how many more there were.
    static func show(_ arguments: [String], lines: Int, more: String, mapping: (from: String, to: String)) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: viewer)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        guard (try? process.run()) != nil else { return }
        // A Ctrl-C now stops the viewer too, and this process after it.
        let hidden = Interruption.whileRunning(process.processIdentifier) { () -> Int in
            var shown = 0
            var hidden = 0
            var pending = Data()
            let handle = pipe.fileHandleForReading
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = pending[pending.startIndex ... newline]
                    pending.removeSubrange(pending.startIndex ... newline)
                    if shown < lines {
                        // The viewers print sites and crash frames as the copy's build recorded them.
                        FileHandle.standardOutput.write(
                            Data(
                                String(decoding: line, as: UTF8.self).replacingOccurrences(
                                    of: mapping.from, with: mapping.to
                                ).utf8))
                        shown += 1
                    } else {
                        hidden += 1
                    }
                }
            }
            process.waitUntilExit()
            return hidden
        }
        if hidden > 0 { printOut("  ... \(hidden) more line\(hidden == 1 ? "" : "s"): \(more)\n") }
    }

    static func relative(_ path: String) -> String {
        let here = FileManager.default.currentDirectoryPath + "/"
        return path.hasPrefix(here) ? String(path.dropFirst(here.count)) : path
    }

    static func size(_ bytes: Int) -> String {
        bytes >= 1 << 30
            ? String(format: "%.1f GB", Double(bytes) / Double(1 << 30))
            : bytes >= 1 << 20 ? String(format: "%.1f MB", Double(bytes) / Double(1 << 20)) : "\(bytes / 1024) KB"
    }
}
