import Foundation

/// Where the package, its build products and the toolchain are, as seen from a running test.
public enum Paths {
    /// The package root, from this file's location.
    public static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0 ..< 3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The folder of the running test bundle, which also holds `trail` and `libTrailDynamic.so`.
    public static let buildDirectory: String = {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return executable.deletingLastPathComponent().path
    }()

    public static var trail: String { buildDirectory + "/trail" }

    public static func fixture(_ relative: String) -> String { packageRoot + "/Tests/Fixtures/" + relative }

    /// The toolchain's `usr` folder, from `swiftc` on PATH.
    public static let toolchainUsr: String = {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("swiftc")
            if FileManager.default.isExecutableFile(atPath: candidate.path) {
                return candidate.resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent().path
            }
        }
        return "/usr"
    }()

    /// This test process's folder of temporary folders: removed when the process exits, and the folders of
    /// earlier runs that died before they could remove theirs are removed when it is first made.
    private static let temporaryRoot: String = {
        let prefix = "trail-tests-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())) ?? []
        where name.hasPrefix(prefix) {
            if let pid = Int32(name.dropFirst(prefix.count)), kill(pid, 0) != 0, errno == ESRCH {
                try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + name)
            }
        }
        atexit { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "trail-tests-\(getpid())") }
        return NSTemporaryDirectory() + prefix + "\(getpid())"
    }()

    /// $TMPDIR for the programs tests start: SwiftPM leaves a `TemporaryDirectory.*` folder and lock files in
    /// it at every build, hundreds in a run, which go with this process's folder.
    public static let childTemporaryDirectory: String = {
        let path = temporaryRoot + "/tmp"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// A fresh, empty folder for one test.
    public static func temporaryDirectory(_ name: String) -> String {
        let path = temporaryRoot + "/\(name)-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
