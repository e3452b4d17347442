import Foundation

/// A Sample package copied below `.build/test-samples`, with its swift-trail dependency pointed at this
/// checkout. Tests build and edit the copy, never the Sample itself; files are only rewritten when their
/// content changed, so repeated runs build incrementally.
public struct SampleCopy: Sendable {
    public let name: String
    public let directory: String

    public init(_ name: String) throws {
        self.name = name
        directory = Paths.packageRoot + "/.build/test-samples/" + name
        try Self.sync(from: Paths.packageRoot + "/Samples/" + name, to: directory)
        let manifest = directory + "/Package.swift"
        let text = try String(contentsOfFile: manifest, encoding: .utf8)
            .replacingOccurrences(of: #"path: "../..""#, with: "path: \(String(reflecting: Paths.packageRoot))")
        try Self.write(text, to: manifest)
    }

    /// The product folder of a build: `<scratch>/<configuration>`.
    public func products(scratch: String, configuration: String = "debug") -> String {
        directory + "/.build/" + scratch + "/" + configuration
    }

    /// `swift build` in the copy. `traced` sets TRAIL=1; `scratch` names a separate build folder. Warnings are
    /// errors: tracing must add none, in any configuration.
    @discardableResult
    public func build(
        scratch: String, traced: Bool, configuration: String = "debug", extra: [String] = [],
        environment: [String: String] = [:], check: Bool = true
    ) throws -> ProcessResult {
        var env = environment
        if traced { env["TRAIL"] = "1" }
        let arguments =
            [
                "build", "--package-path", directory, "--scratch-path", directory + "/.build/" + scratch,
                "-c", configuration, "-Xswiftc", "-warnings-as-errors",
            ] + extra
        // swift-build itself has been seen to die of SIGSEGV on a loaded machine (exit 139, no diagnostics); that
        // says nothing about the package, so such a build is run once more before it counts.
        let first = try run("swift", arguments, environment: env, check: false)
        guard first.signal != nil || first.shellStatus > 128 else {
            if check, first.status != 0 {
                throw CommandFailed(command: "swift " + arguments.joined(separator: " "), result: first)
            }
            return first
        }
        FileHandle.standardError.write(
            Data("note: swift build of \(directory) died (exit \(first.shellStatus)); running it again\n".utf8))
        return try run("swift", arguments, environment: env, check: check)
    }

    static func sync(from source: String, to destination: String) throws {
        let manager = FileManager.default
        guard let enumerator = manager.enumerator(atPath: source) else { return }
        while let relative = enumerator.nextObject() as? String {
            if relative.hasPrefix(".build") || relative.hasPrefix(".swiftpm") {
                enumerator.skipDescendants()
                continue
            }
            var isDirectory: ObjCBool = false
            _ = manager.fileExists(atPath: source + "/" + relative, isDirectory: &isDirectory)
            if isDirectory.boolValue {
                try manager.createDirectory(atPath: destination + "/" + relative, withIntermediateDirectories: true)
            } else {
                try write(
                    Data(contentsOf: URL(fileURLWithPath: source + "/" + relative)), to: destination + "/" + relative)
            }
        }
    }

    /// Writes only if the content differs, so that unchanged files keep their modification times.
    static func write(_ text: String, to path: String) throws { try write(Data(text.utf8), to: path) }

    /// Bytes, for a Sample's images.
    static func write(_ data: Data, to path: String) throws {
        if FileManager.default.contents(atPath: path) == data { return }
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}

/// Undefined symbols of the object files in a folder, demangled: what the app's own code calls.
public func undefinedSymbols(inObjectsOf directory: String) throws -> [String] {
    let objects = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".o") }
    let nm = try run("nm", ["-u"] + objects.map { directory + "/" + $0 }, check: true)
    let demangled = try run(Paths.toolchainUsr + "/bin/swift-demangle", ["--simplified"], input: nm.stdout, check: true)
    // Lines are "                 U <symbol>", with a "<file>:" line before each object's symbols.
    return demangled.stdout.split(separator: "\n").compactMap { line in
        let trimmed = line.drop { $0 == " " }
        return trimmed.hasPrefix("U ") ? String(trimmed.dropFirst(2)) : nil
    }
}
