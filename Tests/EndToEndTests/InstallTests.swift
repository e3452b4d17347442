import Foundation
import Testing
import TrailTestSupport

/// `make install` puts trail, the binaries it hands verbs to and the package itself under PREFIX, so that an
/// installed trail runs from any folder with no clone around; `make uninstall` removes all of it.
@Suite struct InstallTests {
    @Test func installRunsFromAnyFolderAndUninstallRemovesIt() throws {
        let prefix = Paths.temporaryDirectory("prefix")
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        // A scratch path of its own: `swift test` holds the lock on .build while this runs.
        let scratch = Paths.temporaryDirectory("install-scratch")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let install = try run(
            "make", ["-C", Paths.packageRoot, "install", "PREFIX=\(prefix)", "INSTALL_SCRATCH=\(scratch)"])
        try #require(install.status == 0, "\(install.stdout.suffix(2000))\(install.stderr.suffix(2000))")
        #expect(!(install.stdout + install.stderr).contains("warning:"))
        for binary in ["trail", "trail-rewrite", "trail-resources", "trail-symbolize"] {
            #expect(FileManager.default.isExecutableFile(atPath: prefix + "/bin/" + binary), "\(binary)")
        }
        #expect(FileManager.default.fileExists(atPath: prefix + "/share/swift-trail/Package.swift"))
        #expect(!FileManager.default.fileExists(atPath: prefix + "/share/swift-trail/.build"))

        // From another folder: the viewers, a verb handed on, and trail test finding the installed package
        // (it gets as far as the package it was given).
        let elsewhere = Paths.temporaryDirectory("elsewhere")
        let version = try run(prefix + "/bin/trail", ["--version"], directory: elsewhere, check: true)
        #expect(version.stdout.hasPrefix("trail "))
        #expect(
            try run(prefix + "/bin/trail", ["help", "instrument"], directory: elsewhere, check: true).stdout.contains(
                "Usage: trail instrument"))
        let test = try run(prefix + "/bin/trail", ["test", "--package", elsewhere], directory: elsewhere)
        #expect(test.status == 1)
        #expect(test.stderr.contains("no Package.swift here"), "\(test.stderr)")

        let uninstall = try run("make", ["-C", Paths.packageRoot, "uninstall", "PREFIX=\(prefix)"], check: true)
        _ = uninstall
        #expect(try FileManager.default.contentsOfDirectory(atPath: prefix + "/bin") == [])
        #expect(!FileManager.default.fileExists(atPath: prefix + "/share/swift-trail"))
    }
}
