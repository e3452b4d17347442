import Foundation

/// A one-file program built as a user's build with values is (issue 41): `trail instrument --values` in place,
/// then compiled under Swift 6 with warnings as errors against this checkout's Trail.
public enum ValuesProgram {
    /// Writes `source` as `directory/main.swift`, instruments and compiles it; returns the binary, `directory/app`.
    public static func build(_ source: String, in directory: String) throws -> String {
        let file = directory + "/main.swift"
        try Data(source.utf8).write(to: URL(fileURLWithPath: file))
        try run(Paths.trail, ["instrument", "--values", "--module", "App", "--in-place", file], check: true)
        let build = Paths.buildDirectory
        try run(
            "swiftc",
            [
                "-module-name", "App", "-swift-version", "6", "-Onone", "-warnings-as-errors", "-o",
                directory + "/app", file, "-I", build + "/Modules", "-I",
                Paths.packageRoot + "/Sources/CTrailHooks/include", "-L", build, "-lTrailDynamic", "-Xlinker",
                "-rpath", "-Xlinker", build,
            ], check: true)
        return directory + "/app"
    }
}
