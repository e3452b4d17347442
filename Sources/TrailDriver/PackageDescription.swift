import Foundation
import TrailRewriter

#if canImport(Glibc)
import Glibc
#endif

/// `swift package describe --type json` of a package, the one place it is run.
public enum PackageDescription {
    static func read(_ directory: String, scratch: String? = nil) -> [String: Any]? {
        guard FileManager.default.fileExists(atPath: directory + "/Package.swift") else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["swift", "package", "--package-path", directory] + (scratch.map { ["--scratch-path", $0] } ?? [])
            + ["describe", "--type", "json"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    /// The package's executable products, by name; nil when it cannot be described.
    public static func executableProducts(_ directory: String, scratch: String? = nil) -> [String]? {
        guard let products = read(directory, scratch: scratch)?["products"] as? [[String: Any]] else { return nil }
        return products.filter { ($0["type"] as? [String: Any])?["executable"] != nil }.compactMap {
            $0["name"] as? String
        }
    }
}
