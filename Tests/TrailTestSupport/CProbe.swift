import Foundation

/// C programs from Tests/Fixtures linked with the runtime's C objects, as a C program that links the runtime is:
/// its constructors, interposers and fork handlers, with nothing of Swift's in between.
public enum CProbe {
    /// A target's object files in this build, those of its current sources only: a file renamed or removed since
    /// an earlier build leaves its object behind, which would define its symbols twice.
    public static func objects(of target: String) -> [String] {
        let folder = Paths.buildDirectory + "/" + target + ".build"
        let sources = Paths.packageRoot + "/Sources/" + target + "/"
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
            $0.hasSuffix(".swiftmodule.o")
                || $0.hasSuffix(".o") && FileManager.default.fileExists(atPath: sources + $0.dropLast(2))
        }.sorted().map { folder + "/" + $0 }
    }

    /// Builds `Fixtures/<source>` as `name` in a fresh folder; the executable's path, or why it was not built.
    /// The runtime's private headers are on the include path: a probe may reach into its tables.
    public static func build(_ source: String, named name: String) -> (path: String?, failure: String) {
        let directory = Paths.temporaryDirectory(name)
        let object = directory + "/\(name).o"
        let shimObjects = objects(of: "CTrailShim")
        let sources = Paths.packageRoot + "/Sources"
        do {
            try run(
                Paths.toolchainUsr + "/bin/clang",
                [
                    "-O1", "-c", "-I", sources + "/CTrailHooks/include", "-I", sources + "/CTrailShim", "-I",
                    sources + "/CTrailShim/include", "-o", object, Paths.fixture(source),
                ], check: true)
            try run("swiftc", ["-o", directory + "/" + name, object, "-lswift_Concurrency"] + shimObjects, check: true)
            return (directory + "/" + name, "")
        } catch {
            return (nil, "\(error)")
        }
    }
}
